import { t } from 'elysia';

/** The error body every non-2xx response carries. */
export const ErrorBodySchema = t.Object({
  success: t.Literal(false),
  message: t.String(),
  error: t.String({ description: 'stable machine-readable code' }),
});

/** `{success:true, message}`: what successful mutations answer. */
export const OkSchema = t.Object({ success: t.Literal(true), message: t.String() });

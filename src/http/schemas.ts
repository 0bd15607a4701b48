import { Type as T } from '@sinclair/typebox';

/** The error body every non-2xx response carries. */
export const ErrorBodySchema = T.Object({
  success: T.Literal(false),
  message: T.String(),
  error: T.String({ description: 'stable machine-readable code' }),
});

/** `{success:true, message}`: what successful mutations answer. */
export const OkSchema = T.Object({ success: T.Literal(true), message: T.String() });

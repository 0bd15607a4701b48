import { Type, type TProperties } from '@sinclair/typebox';
import { t } from './t';

/** The error body every non-2xx response carries. */
export const ErrorBodySchema = t.Object({
  success: t.Literal(false),
  message: t.String(),
  error: t.String({ description: 'stable machine-readable code' }),
});

/** `{success:true, message}`: what successful mutations answer. */
export const OkSchema = t.Object({ success: t.Literal(true), message: t.String() });

/** Marks a body schema whose unknown keys are refused (src/http/body.ts); shown in the OpenAPI document. */
export const CLOSED_KEYWORD = 'x-svc-closed';

/** A JSON body with exactly these keys: any other is 400 VALIDATION_FAILED naming it. */
export const closedObject = <P extends TProperties>(properties: P, description?: string) =>
  Type.Object(properties, { additionalProperties: false, [CLOSED_KEYWORD]: true, ...(description ? { description } : {}) });

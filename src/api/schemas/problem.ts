import { Type, type Static } from 'typebox';
import { ERROR_CODES } from '../../errors.ts';

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'URI reference identifying the problem type' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.Optional(Type.String()),
    instance: Type.String({ description: 'The request path' }),
    requestId: Type.String({ description: 'X-Request-ID of the request, for support and log search' }),
    code: Type.Union(Object.keys(ERROR_CODES).map((code) => Type.Literal(code))),
    reason: Type.Optional(Type.String({ description: "The back-end's reason code" })),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          pointer: Type.String({ description: 'JSON pointer into the request part' }),
          in: Type.Union([Type.Literal('body'), Type.Literal('path'), Type.Literal('query'), Type.Literal('header')]),
          detail: Type.String(),
        }),
      ),
    ),
  },
  { $id: 'Problem', title: 'Problem', description: 'RFC 9457 problem details' },
);

export type Problem = Static<typeof ProblemSchema>;

/** Response-schema entry for an error status: problem+json, by reference to the shared schema. */
export function problem(description: string) {
  return { description, content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } } };
}

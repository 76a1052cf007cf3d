/**
 * JSON merge patch (RFC 7396) on the routes that change a resource: each member becomes an action the back-end's
 * update record carries beside its value, and the media type is accepted where such a route is.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { JSON_POISONING_OPTIONS } from './protection/limits.ts';
import type { Api } from './routes/common.ts';

/** Merge-patch member → [action, value]: K keep (absent), S set, D delete (null). */
export function patchAction(value: string | null | undefined): [string, string] {
  if (value === undefined) return ['K', ''];
  if (value === null) return ['D', ''];
  return ['S', value];
}

/**
 * Registers merge-patch routes in a context of their own, where `application/merge-patch+json` is parsed as JSON
 * is (with the same poisoning checks): the media type is accepted on these routes only.
 */
export function mergePatchRoutes(app: Api, routes: (scope: Api) => void): void {
  void app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/merge-patch+json',
      { parseAs: 'string' },
      scope.getDefaultJsonParser(
        JSON_POISONING_OPTIONS.onProtoPoisoning,
        JSON_POISONING_OPTIONS.onConstructorPoisoning,
      ),
    );
    routes(scope.withTypeProvider<TypeBoxTypeProvider>());
  });
}

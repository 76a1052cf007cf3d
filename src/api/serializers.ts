/**
 * Fastify's response serializer compiler, one serializer per distinct response schema rather than per route and
 * status, so the shared Problem schema is not compiled hundreds of times onto the heap.
 */
import { hash } from 'node:crypto';
import { SerializerSelector, type Serializer, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';

/** The serializers of one app: `build` is fast-json-stringify's factory (a counting one in tests). */
export function sharedSerializers(build: SerializerFactory = SerializerSelector()): SerializerFactory {
  const serializers = new Map<string, Serializer>();
  // Fastify asks for a new compiler per route in a context that added shared schemas: the serializers are
  // kept across its calls, under what a serializer depends on. The default compiler reads nothing of a
  // route but its schema (not its method, url or status), and resolves references against the shared
  // schemas and options of its call (this app sets no serializer options, which could hold functions).
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    const shared = hash('sha256', JSON.stringify([externalSchemas ?? null, options ?? null]), 'base64url');
    return (route) => {
      const key = `${shared}:${hash('sha256', JSON.stringify(route.schema ?? null), 'base64url')}`;
      let serializer = serializers.get(key);
      if (serializer === undefined) {
        serializer = compile(route);
        serializers.set(key, serializer);
      }
      return serializer;
    };
  };
}

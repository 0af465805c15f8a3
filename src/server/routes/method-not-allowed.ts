/**
 * 405 instead of 404 when the path exists with another method (contract section 1).
 * Fastify answers 404 for any unrouted method, so every registered path gets a
 * catch-all for the methods it does not serve, with an `Allow` header. That includes
 * HEAD on a path without GET (Fastify answers HEAD wherever GET is served) and OPTIONS.
 * A CORS preflight (when CORS is on) is answered by @fastify/cors' onRequest hook first.
 */
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { ApiError } from '../errors.js';

const METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Call before the routes are added; call the returned function after the last one. */
export function trackRoutesForMethodNotAllowed(app: FastifyInstance): () => void {
  const byUrl = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const set = byUrl.get(route.url) ?? new Set<string>();
    for (const m of methods) set.add(m);
    byUrl.set(route.url, set);
  });
  return () => {
    for (const [url, methods] of byUrl) {
      const missing = METHODS.filter((m) => !methods.has(m) && !(m === 'HEAD' && methods.has('GET')));
      if (!missing.length) continue;
      // HEAD is served wherever GET is (RFC 9110: Allow lists every method the resource supports).
      const allow = [...methods].filter((m) => m !== 'HEAD').flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])).join(', ');
      const refuse = async () => {
        throw new ApiError({ status: 405, code: 'PR405', title: 'Method Not Allowed', detail: `this endpoint allows ${allow}`, headers: { allow } });
      };
      // Answered in onRequest, before the body is read: a wrong method is 405 whatever it sends.
      app.route({ method: missing, url, config: { public: true }, schema: { hide: true }, onRequest: refuse, handler: refuse });
    }
  };
}

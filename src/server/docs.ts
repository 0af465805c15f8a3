/**
 * OpenAPI 3.1 document (`GET /openapi.json`) and the API reference page (`GET /docs`),
 * both generated from the TypeBox schemas the routes validate with.
 */
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

export async function registerDocs(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Partner Reporting API',
        version: '1.0.0',
        description:
          'Read-only, paginated, filterable reports about accounts, opportunities, partner attribution events and connected partner organizations. Errors are RFC 9457 problem+json.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'api-key', description: 'API key created in Admin Center > Data > API Keys (or `partner-reports keys create`).' },
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Fallback when `api-key` is absent: HS256 with JWT_SECRET or a JWKS; claims sub, org, role.' },
        },
      },
      security: [{ apiKey: [] }, { bearer: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: false });
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
}

/**
 * `GET /api/v1/openapi.json`: the OpenAPI 3.1 document, generated from the route table at build time and
 * read from the static assets (lib/openapi-json.ts).
 */
import { parseQuery, type Endpoint } from '../../../lib/endpoint.ts';
import { openApiDocumentSchema, openApiJson, openApiTemplate } from '../../../lib/openapi-json.ts';

const endpoint: Endpoint = {
  methods: {
    GET: {
      operationId: 'getOpenApiDocument',
      summary: 'OpenAPI document',
      description: 'This API described as OpenAPI 3.1, generated from the same schemas the endpoints validate with.',
      tags: ['Meta'],
      auth: 'none',
      response: { description: 'The OpenAPI 3.1 document.', schema: openApiDocumentSchema },
      schemaNames: { response: 'OpenApiDocument' },
      problems: ['invalid_request'],
      async handle(c) {
        parseQuery(c, undefined);
        // The same bytes for every Host: the server is configuration, so the body may be cached publicly.
        const template = await openApiTemplate(c.env.ASSETS);
        return c.body(openApiJson(template, c.get('config').publicOrigin ?? '/'), 200, {
          'Content-Type': 'application/json',
          'Cache-Control': 'public, max-age=300',
        });
      },
    },
  },
};

export default endpoint;

/**
 * JSON Schema (2020-12) of a zod schema: the one conversion the OpenAPI document, the MCP servers'
 * `tools/list` and the docs' generated sections share. A module of its own so that build scripts can use
 * it without loading the OpenAPI document's generated examples.
 */
import * as z from 'zod';

/** A JSON object. */
export type JsonObject = Record<string, unknown>;

/** JSON Schema (2020-12) of a zod schema, as seen by a client sending it (`input`) or receiving it (`output`). */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonObject;
  return rest;
}

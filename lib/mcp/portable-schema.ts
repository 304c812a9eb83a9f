/**
 * Tool schemas every MCP client reads: a nullable field is described as `anyOf: [<type>, {type: "null"}]`
 * rather than `type: [<type>, "null"]` (zod's output for nullable primitives), which some clients and the
 * MCP Inspector's portability check do not accept. Same meaning, as JSON Schema 2020-12 defines both.
 */

type Json = unknown;
type JsonObject = Record<string, unknown>;

/** Annotations that describe the whole value and stay on the outer schema. */
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

/**
 * A copy of a JSON Schema in which every `type` array holding `"null"` became an `anyOf` of one branch per
 * non-null type (carrying the type's keywords) and `{type: "null"}`. Linear in the schema's size.
 */
export function withNullAsAnyOf(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(withNullAsAnyOf);
  if (typeof schema !== 'object' || schema === null) return schema;
  const node = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, withNullAsAnyOf(v)])) as JsonObject;
  const type = node.type;
  if (!Array.isArray(type) || !type.includes('null')) return node;
  const outer: JsonObject = {};
  const inner: JsonObject = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'type') continue;
    (ANNOTATIONS.has(k) ? outer : inner)[k] = v;
  }
  const branches = (type as string[]).filter((t) => t !== 'null').map((t) => ({ type: t, ...inner }));
  return { ...outer, anyOf: [...branches, { type: 'null' }] };
}

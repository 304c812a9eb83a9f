/**
 * Stands in for `ajv` and `ajv-formats` in the Worker bundle (`[alias]` in wrangler.toml). The MCP SDK
 * imports them statically for its default JSON Schema validator, which this service never builds: both
 * servers pass their own (`NO_SCHEMA_VALIDATION` in `sdk-adapter.ts`), and workerd would refuse Ajv's code
 * generation anyway. Leaving them out saves about 220 KiB of the Worker (raw) and their startup cost.
 * @throws {Error} if anything ever calls or constructs it
 */
export default function ajvUnavailable(): never {
  throw new Error('Ajv is not bundled in this Worker.');
}

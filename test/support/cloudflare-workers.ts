/**
 * Stand-in for the `cloudflare:workers` module under vitest (Node), where workerd's built-in module does not
 * exist: `@cloudflare/workers-oauth-provider` imports `WorkerEntrypoint` only to recognise handler classes.
 */
export class WorkerEntrypoint {}

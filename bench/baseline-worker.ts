/**
 * The bare baseline of the HTTP benchmark (bench/http.ts): a Worker that answers every request with a fixed
 * small JSON body and does nothing else but read the request's body, if it has one. Started by the same `unstable_startWorker` setup, with the same
 * compatibility date and flags as the service, in the same run, so that the only difference between its
 * figures and the service's is the service's own code.
 */
export default {
  async fetch(request: Request): Promise<Response> {
    // A request's body is read, as every endpoint that takes one reads it: workerd closes a kept-alive
    // connection after answering a request whose body was left unread, and the client's next request then
    // pays for a new connection, which would make the baseline slower than any endpoint sent the same POST.
    if (request.body) await request.arrayBuffer();
    return new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } });
  },
};

/**
 * The bare baseline of the HTTP benchmark (bench/http.ts): a Worker that answers every request with a fixed
 * small JSON body and does nothing else. Started by the same `unstable_startWorker` setup, with the same
 * compatibility date and flags as the service, in the same run, so that the only difference between its
 * figures and the service's is the service's own code.
 */
export default {
  fetch(): Response {
    return new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } });
  },
};

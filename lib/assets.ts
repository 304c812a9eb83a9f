/**
 * What the Worker reads from its own static assets (`public/`, built by `npm run build`) through the
 * `ASSETS` binding: the OpenAPI template, the search index, the embedded funds. One place for how an asset
 * is fetched and how what is made from it is kept for the isolate.
 */
import type { Env } from './env.ts';

/** The origin asset requests are addressed to: the binding serves by path and ignores the host. */
const ASSETS_ORIGIN = 'https://assets.invalid';

/**
 * An asset's response through the binding.
 * @param path the asset's path under `public/`, from `/`
 * @returns the binding's response (any status: the caller decides what a miss means)
 * @throws {Error} `The ASSETS binding is missing.` without the binding (a deployment fault)
 */
export function fetchAsset(assets: Env['ASSETS'] | undefined, path: string): Promise<Response> {
  if (!assets) return Promise.reject(new Error('The ASSETS binding is missing.'));
  return assets.fetch(new Request(`${ASSETS_ORIGIN}${path}`));
}

/**
 * An asset's text.
 * @param what the asset's name in the error message
 * @throws {Error} without the binding, or when the asset is not there (`<what> answered <status>.`); both are
 *   deployment faults, answered as a generic 500 by the caller
 */
export async function assetText(assets: Env['ASSETS'] | undefined, path: string, what: string): Promise<string> {
  const res = await fetchAsset(assets, path);
  if (!res.ok) throw new Error(`${what} answered ${res.status}.`);
  return res.text();
}

/**
 * A value made from an asset, kept for the isolate once made. Calls made before the first load has finished
 * load for themselves instead of awaiting it: workerd ties an I/O promise to the request that started it, so
 * a promise shared across requests might never settle for the others if that request were cancelled. A
 * failed load is not kept: the next call tries again.
 * @param load makes the value from the calling request's arguments (e.g. its `ASSETS` binding)
 * @returns a function giving the value; its arguments are used only while nothing is kept
 */
export function keptOnceLoaded<A extends unknown[], T>(load: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
  let kept: { value: T } | undefined;
  return async (...args: A) => {
    if (kept) return kept.value;
    const value = await load(...args);
    kept ??= { value };
    return kept.value;
  };
}

// express-openapi-validator 5.6 compiles a regular expression for every described path on every
// request (openapi.metadata.js lookupRoute calls pathToRegexp in its loop), which costs a third of
// its time. The inputs are the same few route templates each time, so the compiled expressions are
// memoized here, in the path-to-regexp module instance the validator itself loads. The result is
// the same: the regexps have no global flag, so sharing them is safe.
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const validatorDir = path.dirname(require.resolve("express-openapi-validator"));
const pathToRegexpModule = require(require.resolve("path-to-regexp", { paths: [validatorDir] })) as {
  pathToRegexp: (route: string, options?: object) => unknown;
  __memoized?: boolean;
};

if (!pathToRegexpModule.__memoized) {
  const original = pathToRegexpModule.pathToRegexp;
  // route -> "<sensitive><strict>" -> compiled; the validator passes only those two options.
  const cache = new Map<string, Map<string, unknown>>();
  pathToRegexpModule.pathToRegexp = (route, options) => {
    const { sensitive, strict, ...other } = (options ?? {}) as { sensitive?: boolean; strict?: boolean };
    if (typeof route !== "string" || Object.keys(other).length > 0) return original(route, options);
    const flags = `${sensitive ? 1 : 0}${strict ? 1 : 0}`;
    let byFlags = cache.get(route);
    if (!byFlags) cache.set(route, (byFlags = new Map()));
    let compiled = byFlags.get(flags);
    if (compiled === undefined) {
      compiled = original(route, options);
      byFlags.set(flags, compiled);
    }
    return compiled;
  };
  pathToRegexpModule.__memoized = true;
}

// The Node.js versions the toolkit runs on (package.json's engines), checked before anything else
// is loaded, so that an older Node says so in a sentence instead of failing with a stack trace.
// Plain JavaScript of an old syntax on purpose: it must parse on the Node versions it refuses.

/** The versions that work, as package.json's engines says them. */
export var SUPPORTED = ">=20.19.0 <21 || >=22.12.0";

/** Undefined when `version` ("20.19.2") is supported, else the sentence to print. */
export function nodeVersionProblem(version) {
  var parts = String(version).replace(/^v/, "").split(".");
  var major = Number(parts[0]);
  var minor = Number(parts[1]);
  var ok = (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major > 22;
  if (ok) return undefined;
  return "contract-toolkit needs Node.js 20.19 or later in the 20 line, or 22.12 or later (" + SUPPORTED + "); this is Node.js " + version + ". Install a supported Node.js (https://nodejs.org) and run it again.";
}

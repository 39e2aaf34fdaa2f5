#!/usr/bin/env node
// contract-toolkit: the installed CLI's entry. It checks the Node.js version first, with only
// code every Node.js parses, then loads the bundled CLI (dist/cli.mjs).
import { nodeVersionProblem } from "./node-version.mjs";

var problem = nodeVersionProblem(process.versions.node);
if (problem) {
  console.error(problem);
  process.exit(1);
}
import("../dist/cli.mjs").then(function (cli) {
  return cli.main(process.argv.slice(2));
});

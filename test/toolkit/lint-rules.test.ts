// Whose rules the lint applies: the toolkit's three APIs are held to the house rules of redocly.yaml
// (every problem an error, camelCase operationIds...), an API a user adds gets Redocly's recommended
// rules as Redocly judges them (a warning is printed, not a failure) until its entry says otherwise.
// The real redocly.yaml of this repository, in a temporary folder, with the entries' roots pointed
// at one small description that breaks a house rule and draws a recommended warning.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { REPO } from "../helpers/project-copy.ts";
import { run } from "../helpers/run.ts";

// snake_case operationId: a house rule; no 4xx response: a recommended warning (operation-4xx-response).
const THEIR_DESCRIPTION = `openapi: 3.1.0
info:
  title: Pets
  version: 1.0.0
  description: Pets of a shop.
  license:
    name: MIT
    url: https://opensource.org/license/mit/
servers:
  - url: https://pets.test/v1
security: []
paths:
  /pets:
    get:
      operationId: list_pets
      summary: The shop's pets
      description: Every pet of the shop.
      responses:
        "200":
          description: The pets.
          content:
            application/json:
              schema:
                type: array
                items:
                  type: string
`;

let folder: string;
const lint = (...apis: string[]) =>
  run(process.execPath, [path.join(REPO, "scripts", "run.mjs"), path.join(REPO, "scripts", "lint.ts"), ...apis], {
    cwd: folder,
    env: { TOOLKIT_CONFIG: path.join(folder, "redocly.yaml") },
  });

beforeAll(() => {
  folder = mkdtempSync(path.join(tmpdir(), "lint-rules-"));
  writeFileSync(path.join(folder, "pets.yaml"), THEIR_DESCRIPTION);
  const config = YAML.parseDocument(readFileSync(path.join(REPO, "redocly.yaml"), "utf8"));
  // The built-in entries keep their rules (anchors and aliases stay as written); only their root
  // moves. APIs a clone has added (npm run add-api) are left out: their files are not copied here.
  const builtIn = ["org-platform@v2", "secrets@v1", "mesh@v1"];
  for (const key of Object.keys((config.get("apis") as YAML.YAMLMap).toJSON() as object)) if (!builtIn.includes(key)) config.deleteIn(["apis", key]);
  for (const key of builtIn) config.setIn(["apis", key, "root"], "pets.yaml");
  config.setIn(["apis", "pets@v1"], config.createNode({ root: "pets.yaml" }));
  writeFileSync(path.join(folder, "redocly.yaml"), config.toString());
});

afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe("npm run lint:descriptions: the rules by API", { timeout: 120_000 }, () => {
  it("lints an added API with Redocly's recommended rules: a warning is shown and does not fail", async () => {
    const result = await lint("pets");
    expect(result.code, result.output).toBe(0);
    expect(result.stdout).toContain("pets: 0 errors, 1 warnings");
    expect(result.output).toContain("operation-4xx-response");
    // The house rule is not applied to it.
    expect(result.output).not.toContain("camelCase");
  });

  it("holds the toolkit's own APIs to the house rules, under which the same problems are errors", async () => {
    const result = await lint("mesh");
    expect(result.code, result.output).toBe(1);
    expect(result.stdout).toContain("mesh: 2 errors, 0 warnings");
    expect(result.output).toContain("operationIds are camelCase verb-noun");
    expect(result.output).toContain("operation-4xx-response");
  });

  it("holds each of the three to them (the entries share the rules through YAML aliases)", async () => {
    const result = await lint("org-platform", "secrets", "mesh", "pets");
    expect(result.code, result.output).toBe(1);
    for (const api of ["org-platform", "secrets", "mesh"]) expect(result.stdout).toContain(`${api}: 2 errors, 0 warnings`);
    expect(result.stdout).toContain("pets: 0 errors, 1 warnings");
  });
});

// The Arazzo workflows (workflows/*.arazzo.yaml) and what `npm run workflows` gives them: every
// source description is an API with a reference server (named after it, or after it and a role for
// a second server of one API) or the workflow utilities (workflows/utilities.openapi.yaml), every required input is provided by the
// servers' entries (fixed or once running), step ids are unique per file (respect resolves
// `$steps.<id>` across a file's workflows), and the PGP keys written into the rekey workflow are the
// committed fixtures. The running servers' inputs are the real ones: the mesh's address answers, and
// the secrets server's shares complete a rekey.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import * as openpgp from "openpgp";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { APIS } from "../../scripts/apis.ts";
import { REFERENCE_SERVERS } from "../../scripts/contract/reference-servers.ts";
import { decodeToken, encodeToken } from "../../server/secrets/replication/domain/otp.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const dir = path.join(root, "workflows");

interface Step {
  stepId: string;
  requestBody?: { payload?: Record<string, unknown> };
  successCriteria?: { condition: string }[];
}
interface Workflow {
  workflowId: string;
  inputs?: { properties?: Record<string, { default?: unknown }>; required?: string[] };
  steps: Step[];
}
interface ArazzoDocument {
  sourceDescriptions: { name: string; url: string; type?: string }[];
  workflows: Workflow[];
}

const files = readdirSync(dir).filter((f) => f.endsWith(".arazzo.yaml")).sort();
const read = (file: string) => parse(readFileSync(path.join(dir, file), "utf8")) as ArazzoDocument;
const serverOf = (api: string) => REFERENCE_SERVERS.find((s) => s.api === api);
const camel = (api: string) => api.replace(/-(.)/g, (_, c: string) => c.toUpperCase());
/** The API of a source description: the one whose bundle it points at. */
const apiOf = (source: { url: string }) => /^\.\.\/generated\/([^/]+)\/openapi\.json$/.exec(source.url)?.[1] ?? `(not a bundle: ${source.url})`;

describe("workflow files", () => {
  it("there are the flows the README lists", () => {
    expect(files).toEqual([
      "mesh-config-then-chain.arazzo.yaml",
      "org-platform-oauth-client-projects.arazzo.yaml",
      "org-platform-team-life-cycle.arazzo.yaml",
      "secrets-dr-operation-token.arazzo.yaml",
      "secrets-engine-credentials.arazzo.yaml",
      "secrets-performance-replication.arazzo.yaml",
      "secrets-rekey.arazzo.yaml",
    ]);
  });

  for (const file of files) {
    describe(file, () => {
      const doc = read(file);

      it("names APIs of scripts/apis.ts with a reference server, each pointing at its bundle (or the utilities)", () => {
        for (const source of doc.sourceDescriptions) {
          if (source.name === "utilities") {
            expect(source.url).toBe("utilities.openapi.yaml");
            continue;
          }
          const api = apiOf(source);
          expect(APIS.map((a) => a.name)).toContain(api);
          expect(serverOf(api), `no reference server for ${api}`).toBeDefined();
          expect(source.name === api || new RegExp(`^${camel(api)}[A-Z]`).test(source.name), `${source.name} is named after ${api}`).toBe(true);
        }
        expect(file.startsWith(`${doc.sourceDescriptions[0]!.name}-`)).toBe(true);
      });

      it("has step ids unique in the file", () => {
        const ids = doc.workflows.flatMap((w) => w.steps.map((s) => s.stepId));
        expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
      });

      it("gets every required input without a default from the reference servers' entries", async () => {
        const given = new Set<string>();
        for (const source of doc.sourceDescriptions.filter((s) => s.name !== "utilities")) {
          const api = apiOf(source);
          const server = serverOf(api)!;
          // A second instance's inputs are renamed after it: secretsToken -> secretsDrToken.
          const add = (k: string) => given.add(source.name === api ? k : k.replace(camel(api), source.name));
          Object.keys(server.workflowInputs).forEach(add);
          const running = await server.start();
          try {
            Object.keys(running.workflowInputs ?? {}).forEach(add);
          } finally {
            await running.close();
          }
        }
        for (const workflow of doc.workflows) {
          const properties = workflow.inputs?.properties ?? {};
          const missing = (workflow.inputs?.required ?? []).filter((name) => properties[name]?.default === undefined && !given.has(name));
          expect(missing, workflow.workflowId).toEqual([]);
        }
      });
    });
  }
});

describe("npm run workflows -- <file>", () => {
  const workflows = (...args: string[]) => spawnSync(process.execPath, ["scripts/run.mjs", "scripts/workflows.ts", ...args], { cwd: root, encoding: "utf8" });

  it("names a file argument that is not an Arazzo file, or is not there, and runs nothing", () => {
    const notArazzo = workflows("nosuch.yaml", "-v");
    expect(notArazzo.status).toBe(2);
    expect(notArazzo.stderr).toBe("workflows: nosuch.yaml is not an Arazzo file (the files this runs are named *.arazzo.yaml)\n");
    const missing = workflows("workflows/nosuch.arazzo.yaml");
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe("workflows: no such file: workflows/nosuch.arazzo.yaml\n");
    expect(missing.stdout).toBe("");
  }, 30_000);
});

describe("the workflow utilities (workflows/utilities.openapi.yaml, served by scripts/workflows.ts)", () => {
  const doc = parse(readFileSync(path.join(dir, "utilities.openapi.yaml"), "utf8")) as {
    paths: Record<string, Record<string, { operationId: string; requestBody: { content: Record<string, { example: { encoded_token: string; otp: string } }> }; responses: Record<string, { content: Record<string, { example: { token: string } }> }> }>>;
  };
  const decode = doc.paths["/decode-operation-token"]!.post!;

  it("lint clean", () => {
    const lint = spawnSync(path.join(root, "node_modules", ".bin", "redocly"), ["lint", "workflows/utilities.openapi.yaml"], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    });
    expect(lint.status, lint.stdout + lint.stderr).toBe(0);
    expect(lint.stdout + lint.stderr).not.toMatch(/You have \d+ warning/);
  }, 30_000);

  it("decode-operation-token: its examples are a token encoded by the secrets server's own function", () => {
    const { encoded_token, otp } = decode.requestBody.content["application/json"]!.example;
    const { token } = decode.responses["200"]!.content["application/json"]!.example;
    expect(decode.operationId).toBe("decodeOperationToken");
    expect(encodeToken(token, otp)).toBe(encoded_token);
    expect(decodeToken(encoded_token, otp)).toBe(token);
  });
});

describe("the rekey workflow's PGP keys", () => {
  const doc = read("secrets-rekey.arazzo.yaml");
  const workflow = doc.workflows.find((w) => w.workflowId === "rekeyWithPgpKeysAndBackup")!;
  const start = workflow.steps.find((s) => s.requestBody?.payload?.pgp_keys)!;

  it("are the fixtures workflows/fixtures/rekey-test-key-{1,2,3}.asc, and the criteria name their fingerprints", async () => {
    const fixtures = await Promise.all(
      [1, 2, 3].map(async (i) => openpgp.readKey({ armoredKey: readFileSync(path.join(dir, "fixtures", `rekey-test-key-${i}.asc`), "utf8") })),
    );
    for (const key of fixtures) expect(key.isPrivate()).toBe(false);
    expect(start.requestBody!.payload!.pgp_keys).toEqual(fixtures.map((key) => Buffer.from(key.write()).toString("base64")));
    const criteria = workflow.steps.flatMap((s) => (s.successCriteria ?? []).map((c) => c.condition)).join("\n");
    fixtures.forEach((key, i) => {
      expect(criteria).toContain(`pgp_fingerprints/${i} == '${key.getFingerprint()}'`);
      expect(criteria).toContain(`data/keys/${key.getFingerprint()}/0 == $steps.submitSharePgp3.outputs.encryptedShare${i + 1}`);
    });
  });
});

describe("inputs of the running reference servers", () => {
  it("mesh: meshAddress is the host:port the mesh answers at", async () => {
    const running = await serverOf("mesh")!.start();
    try {
      const address = running.workflowInputs?.meshAddress;
      expect(address).toBe(new URL(running.baseUrl).host);
      const response = await fetch(`http://${address}/v1/agent/self`, { headers: serverOf("mesh")!.headers });
      expect(response.status).toBe(200);
    } finally {
      await running.close();
    }
  });

  it("secrets: secretsKey1..5 are the current unseal key shares (3 of them complete a rekey)", async () => {
    const server = serverOf("secrets")!;
    const running = await server.start();
    const post = async (p: string, body: unknown) => {
      const response = await fetch(`${running.baseUrl}${p}`, { method: "POST", headers: server.headers, body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    try {
      const inputs = running.workflowInputs ?? {};
      expect(Object.keys(inputs).sort()).toEqual(["secretsKey1", "secretsKey2", "secretsKey3", "secretsKey4", "secretsKey5"]);
      const started = await post("/sys/rekey/init", { secret_shares: 1, secret_threshold: 1 });
      expect(started.status).toBe(200);
      const answers = [];
      for (const key of [inputs.secretsKey5, inputs.secretsKey1, inputs.secretsKey3]) answers.push(await post("/sys/rekey/update", { key, nonce: started.body.nonce }));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect(answers[1]!.body.progress).toBe(2);
      expect(answers[2]!.body.complete).toBe(true);
    } finally {
      await running.close();
    }
  });
});

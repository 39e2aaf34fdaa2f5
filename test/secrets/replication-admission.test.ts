// Which requests a cluster serves in its replication roles (server/secrets/replication/domain/admission.ts),
// decided before the operation runs: what a DR secondary and a performance secondary refuse, with
// which status and words.
import { describe, expect, it } from "vitest";
import { InvalidRequestError, NotFoundError } from "../../server/secrets/errors.ts";
import { admitRequest, type PerformanceRole, type RequestMethodName } from "../../server/secrets/replication/domain/admission.ts";
import type { ReplicationRole } from "../../server/secrets/replication/domain/states.ts";

const notPerformanceSecondary: PerformanceRole = { role: "disabled", secondaryFilter: undefined, primaryApiAddr: undefined };
const READS: RequestMethodName[] = ["get", "list"];
const WRITES: RequestMethodName[] = ["put", "post", "delete", "patch"];

/** The refusal (status and message), or "admitted". */
function decision(method: RequestMethodName, path: string, mount: string | undefined, dr: ReplicationRole, performance: PerformanceRole): string {
  try {
    admitRequest(method, path, mount, dr, performance);
    return "admitted";
  } catch (error) {
    expect(error instanceof InvalidRequestError || error instanceof NotFoundError).toBe(true);
    return `${(error as InvalidRequestError | NotFoundError).status} ${(error as Error).message}`;
  }
}

describe("admitRequest", () => {
  it("serves everything on a cluster that is no secondary, whatever its other roles", () => {
    for (const dr of ["disabled", "primary"] as const) {
      for (const role of ["disabled", "primary"] as const) {
        for (const method of [...READS, ...WRITES]) {
          expect(decision(method, "aws/roles/x", "aws/", dr, { ...notPerformanceSecondary, role }), `${dr} ${role} ${method}`).toBe("admitted");
          expect(decision(method, "sys/policies/acl/x", undefined, dr, { ...notPerformanceSecondary, role })).toBe("admitted");
          for (const rekey of ["sys/rekey/init", "sys/rekey/update", "sys/rekey/verify"]) expect(decision(method, rekey, undefined, dr, { ...notPerformanceSecondary, role })).toBe("admitted");
        }
      }
    }
  });

  it("a DR secondary serves sys/replication/* only: anything else is 400 path disabled", () => {
    for (const method of [...READS, ...WRITES]) {
      expect(decision(method, "sys/replication/dr/secondary/promote", undefined, "secondary", notPerformanceSecondary)).toBe("admitted");
      expect(decision(method, "sys/replication/status", undefined, "secondary", notPerformanceSecondary)).toBe("admitted");
      expect(decision(method, "aws/roles/x", "aws/", "secondary", notPerformanceSecondary)).toBe("400 path disabled in replication DR secondary mode");
      expect(decision(method, "sys/health", undefined, "secondary", notPerformanceSecondary)).toBe("400 path disabled in replication DR secondary mode");
      // Only the whole first two segments are the replication API.
      expect(decision(method, "sys/replicationx/status", undefined, "secondary", notPerformanceSecondary)).toBe("400 path disabled in replication DR secondary mode");
      expect(decision(method, "x/sys/replication/status", undefined, "secondary", notPerformanceSecondary)).toBe("400 path disabled in replication DR secondary mode");
    }
  });

  it("a performance secondary reads, refuses every write with 400 naming its primary, and serves sys/replication/* whole", () => {
    const secondary: PerformanceRole = { role: "secondary", secondaryFilter: undefined, primaryApiAddr: "https://primary:8200" };
    const refusedWrite =
      "400 cannot write to a performance secondary: replicated data is written on the performance primary (https://primary:8200) and reaches this cluster by replication";
    for (const method of READS) expect(decision(method, "aws/roles/x", "aws/", "disabled", secondary), method).toBe("admitted");
    for (const method of WRITES) {
      expect(decision(method, "aws/roles/x", "aws/", "disabled", secondary), method).toBe(refusedWrite);
      expect(decision(method, "sys/policies/acl/x", undefined, "disabled", secondary), method).toBe(refusedWrite);
      expect(decision(method, "sys/replication/performance/secondary/promote", undefined, "disabled", secondary), method).toBe("admitted");
    }
    // A secondary that knows no primary's address says so without one.
    expect(decision("post", "aws/roles/x", "aws/", "disabled", { ...secondary, primaryApiAddr: undefined })).toBe(
      "400 cannot write to a performance secondary: replicated data is written on the performance primary and reaches this cluster by replication",
    );
  });

  it("a performance secondary has no route to a mount its paths filter leaves out (404), read or write; sys/* has no mount", () => {
    const allowAws: PerformanceRole = { role: "secondary", secondaryFilter: { mode: "allow", paths: ["aws/"] }, primaryApiAddr: undefined };
    const denyAws: PerformanceRole = { ...allowAws, secondaryFilter: { mode: "deny", paths: ["aws/"] } };
    expect(decision("get", "aws/roles/x", "aws/", "disabled", allowAws)).toBe("admitted");
    expect(decision("get", "cloud/roles/x", "cloud/", "disabled", allowAws)).toBe('404 no handler for route "cloud/roles/x". route entry not found.');
    expect(decision("post", "cloud/roles/x", "cloud/", "disabled", allowAws)).toBe('404 no handler for route "cloud/roles/x". route entry not found.');
    expect(decision("get", "aws/roles/x", "aws/", "disabled", denyAws)).toBe('404 no handler for route "aws/roles/x". route entry not found.');
    expect(decision("get", "cloud/roles/x", "cloud/", "disabled", denyAws)).toBe("admitted");
    expect(decision("get", "sys/policies/acl/x", undefined, "disabled", denyAws)).toBe("admitted");
  });

  // http/sys_rekey.go: handleSysRekeyInit and handleSysRekeyVerify refuse a performance secondary
  // before looking at the method; handleSysRekeyUpdate has no such check (and the real server runs
  // it locally), so an update meets the attempt's own refusals there.
  it("a performance secondary refuses rekey init and verify whatever the method, and lets update through", () => {
    const secondary: PerformanceRole = { role: "secondary", secondaryFilter: { mode: "allow", paths: ["aws/"] }, primaryApiAddr: "https://primary:8200" };
    const rekeyRefused = "400 rekeying can only be performed on the primary cluster when replication is activated";
    const refusedWrite =
      "400 cannot write to a performance secondary: replicated data is written on the performance primary (https://primary:8200) and reaches this cluster by replication";
    for (const method of [...READS, ...WRITES]) {
      expect(decision(method, "sys/rekey/init", undefined, "disabled", secondary), method).toBe(rekeyRefused);
      expect(decision(method, "sys/rekey/verify", undefined, "disabled", secondary), method).toBe(rekeyRefused);
      expect(decision(method, "sys/rekey/update", undefined, "disabled", secondary), method).toBe("admitted");
      // A trailing slash is a LIST's (the route of a list) and nobody else's.
      expect(decision(method, "sys/rekey/init/", undefined, "disabled", secondary), method).toBe(
        method === "list" ? rekeyRefused : READS.includes(method) ? "admitted" : refusedWrite,
      );
      expect(decision(method, "sys/rekey/verify/", undefined, "disabled", secondary), method).toBe(
        method === "list" ? rekeyRefused : READS.includes(method) ? "admitted" : refusedWrite,
      );
      expect(decision(method, "sys/rekey/init//", undefined, "disabled", secondary), method).toBe(READS.includes(method) ? "admitted" : refusedWrite);
      // Only those whole paths: other rekey paths are reads and writes as any other.
      for (const other of ["sys/rekey/backup", "sys/rekey/init/x", "sys/rekey/initx", "x/sys/rekey/init", "sys/rekey/updatex"]) {
        expect(decision(method, other, undefined, "disabled", secondary), `${method} ${other}`).toBe(READS.includes(method) ? "admitted" : refusedWrite);
      }
    }
  });

  it("a performance secondary serves the token lookups, writes included (its tokens are its own); a DR secondary does not", () => {
    const secondary: PerformanceRole = { role: "secondary", secondaryFilter: { mode: "allow", paths: ["aws/"] }, primaryApiAddr: "https://primary:8200" };
    const refusedWrite =
      "400 cannot write to a performance secondary: replicated data is written on the performance primary (https://primary:8200) and reaches this cluster by replication";
    for (const method of [...READS, ...WRITES]) {
      for (const path of ["auth/token/lookup", "auth/token/lookup-self"]) {
        expect(decision(method, path, undefined, "disabled", secondary), `${method} ${path}`).toBe("admitted");
        expect(decision(method, path, undefined, "secondary", notPerformanceSecondary), `${method} ${path}`).toBe("400 path disabled in replication DR secondary mode");
      }
      for (const other of ["auth/token/lookup-selfx", "auth/token/lookup/x", "auth/token/create", "x/auth/token/lookup"]) {
        expect(decision(method, other, undefined, "disabled", secondary), `${method} ${other}`).toBe(READS.includes(method) ? "admitted" : refusedWrite);
      }
    }
  });

  it("a DR secondary's refusal comes first, also when it is a performance secondary", () => {
    const secondary: PerformanceRole = { role: "secondary", secondaryFilter: { mode: "allow", paths: ["aws/"] }, primaryApiAddr: undefined };
    expect(decision("get", "cloud/roles/x", "cloud/", "secondary", secondary)).toBe("400 path disabled in replication DR secondary mode");
    for (const rekey of ["sys/rekey/init", "sys/rekey/update", "sys/rekey/verify"]) {
      expect(decision("post", rekey, undefined, "secondary", secondary)).toBe("400 path disabled in replication DR secondary mode");
    }
  });
});

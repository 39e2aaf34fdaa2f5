// The discovery-token engine over HTTPS: a mesh reference server behind TLS that demands a client
// certificate, reached with the configured CA and client certificate. Also the TLS failures: an
// unknown CA or no client certificate (seen when a token is made), a key that is not the
// certificate's (refused when written). The certificates below
// were made for these tests only (a test CA, a server certificate for 127.0.0.1, a client
// certificate; valid 2000-2100).
import { createServer, request, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMeshApp, MESH_BASE_PATH } from "../../server/mesh/app.ts";
import { recordOutput, startDiscoverySecrets, type DiscoverySecrets } from "./discovery-token.helpers.ts";

const CA_CERT = `-----BEGIN CERTIFICATE-----
MIIBeDCCAR6gAwIBAgICEAAwCgYIKoZIzj0EAwIwIjEgMB4GA1UEAwwXZGlzY292
ZXJ5LXRva2VuIHRlc3QgQ0EwIBcNMDAwMTAxMDAwMDAwWhgPMjEwMDAxMDEwMDAw
MDBaMCIxIDAeBgNVBAMMF2Rpc2NvdmVyeS10b2tlbiB0ZXN0IENBMFkwEwYHKoZI
zj0CAQYIKoZIzj0DAQcDQgAEqOZRtyz6DNGksOqtllPG1obBhhfMw5fnx251XRBo
y5POV9hFqKHvHMwTt53El73bY4dA/Z2JJdgxvEqgzoo7paNCMEAwDwYDVR0TAQH/
BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAQYwHQYDVR0OBBYEFPP5qXUhMlF0k6I4O+eR
jKdt0+ogMAoGCCqGSM49BAMCA0gAMEUCIBFPOPVf7TEGyV4385MJIRkDUOD1qPii
RLQs/uNTXuyLAiEAvarKFVeQ/6D5wPjWUN5SFj434XonU5xxcclesdV9NSw=
-----END CERTIFICATE-----
`;
const SERVER_CERT = `-----BEGIN CERTIFICATE-----
MIIBpzCCAUygAwIBAgICEAEwCgYIKoZIzj0EAwIwIjEgMB4GA1UEAwwXZGlzY292
ZXJ5LXRva2VuIHRlc3QgQ0EwIBcNMDAwMTAxMDAwMDAwWhgPMjEwMDAxMDEwMDAw
MDBaMBQxEjAQBgNVBAMMCTEyNy4wLjAuMTBZMBMGByqGSM49AgEGCCqGSM49AwEH
A0IABEH0tKliTqYzQVM6bBZ2m43AQtcb4x3sZElmTNP4Dqhw2TEv6t6eNLUDdCUx
d0HfBs/8eZjSD+TkFC/ZByREXpGjfjB8MAkGA1UdEwQCMAAwGgYDVR0RBBMwEYcE
fwAAAYIJbG9jYWxob3N0MBMGA1UdJQQMMAoGCCsGAQUFBwMBMB0GA1UdDgQWBBRA
5GrFgGCM67Hcgd9r2Bmz6U44/jAfBgNVHSMEGDAWgBTz+al1ITJRdJOiODvnkYyn
bdPqIDAKBggqhkjOPQQDAgNJADBGAiEApdhHkSipCGFU9D4lo6+iatXkLstywBq1
ORgTb3m8vu0CIQCupGJ7y/iR32VLEwC9cnP0jqj0mqkgeGbf2j49jssSFg==
-----END CERTIFICATE-----
`;
const SERVER_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQghbHBBuBDBHguluPE
YjhLlcxGIMKLJjr139cC6ANcKKKhRANCAARB9LSpYk6mM0FTOmwWdpuNwELXG+Md
7GRJZkzT+A6ocNkxL+renjS1A3QlMXdB3wbP/HmY0g/k5BQv2QckRF6R
-----END PRIVATE KEY-----
`;
const CLIENT_CERT = `-----BEGIN CERTIFICATE-----
MIIBkDCCATagAwIBAgICEAIwCgYIKoZIzj0EAwIwIjEgMB4GA1UEAwwXZGlzY292
ZXJ5LXRva2VuIHRlc3QgQ0EwIBcNMDAwMTAxMDAwMDAwWhgPMjEwMDAxMDEwMDAw
MDBaMBoxGDAWBgNVBAMMD3NlY3JldHMtc2VydmljZTBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABPq6o/1f8KqdEmsJWJtha6BC5hRUIwJ5jOWA9sso/daOi8Mz3IUf
8maTC6eOw3h8fpnDPowebmUoMXGcFYkd6z2jYjBgMAkGA1UdEwQCMAAwEwYDVR0l
BAwwCgYIKwYBBQUHAwIwHQYDVR0OBBYEFDCkc2dEDKBktVd35vLLtaY8jlpMMB8G
A1UdIwQYMBaAFPP5qXUhMlF0k6I4O+eRjKdt0+ogMAoGCCqGSM49BAMCA0gAMEUC
IQCd3olypCWxLY+H0Viy24AuatVfVIhX72sVFexTH/SIagIgGcLABxowyZ/ctiH+
ubI8cnf+7WQ3E0/odJVdUkkbA9Y=
-----END CERTIFICATE-----
`;
const CLIENT_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgcCS59UZLFKV0YLz8
QP+p8lL3VDhFlr69jy/fSKqhT/uhRANCAAT6uqP9X/CqnRJrCVibYWugQuYUVCMC
eYzlgPbLKP3WjovDM9yFH/JmkwunjsN4fH6Zwz6MHm5lKDFxnBWJHes9
-----END PRIVATE KEY-----
`;
const OTHER_CA_CERT = `-----BEGIN CERTIFICATE-----
MIIBfTCCASOgAwIBAgIUJfThJgNTDtWb5ASxPdKCfykkEUowCgYIKoZIzj0EAwIw
EzERMA8GA1UEAwwIb3RoZXIgQ0EwIBcNMjYxMTIxMTgzMTU5WhgPMjEyNjEwMjgx
ODMxNTlaMBMxETAPBgNVBAMMCG90aGVyIENBMFkwEwYHKoZIzj0CAQYIKoZIzj0D
AQcDQgAEwdr6GBxRtEcPEL0G9ZGUBWdzze8n6COZKJBfgBSP80QqA597O3rpeGyT
/l4gKdDGcd6Fmm5Mxmy306GwHmhFraNTMFEwHQYDVR0OBBYEFLhVv8QFPcdoeMIm
2U9zghie3Q6tMB8GA1UdIwQYMBaAFLhVv8QFPcdoeMIm2U9zghie3Q6tMA8GA1Ud
EwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIgNnmhYJ5ZPpqm4SZDx8Ogti17
Q0fpGxrGMPltAx9xTJECIQDn7Yw6z9hEIvZxmgnewH9hXv2M0jrmZXGGp7bv2K76
mw==
-----END CERTIFICATE-----
`;

const MANAGEMENT = "tls-mesh-management-token-51d0";
let server: Server;
let address: string;
let secrets: DiscoverySecrets;
let output: ReturnType<typeof recordOutput>;

beforeAll(async () => {
  output = recordOutput();
  const { app, service } = createMeshApp({ managementToken: MANAGEMENT });
  service.acl.policies.create(undefined, { Name: "web-reader", Rules: 'service "web" { policy = "read" }' });
  server = createServer({ key: SERVER_KEY, cert: SERVER_CERT, ca: CA_CERT, requestCert: true, rejectUnauthorized: true }, app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  secrets = await startDiscoverySecrets();
});

afterAll(async () => {
  await secrets.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  output.restore();
  const everything = secrets.answers.join("\n") + output.logs.join("\n");
  expect(everything).not.toContain(MANAGEMENT);
  expect(everything).not.toContain(CLIENT_KEY.split("\n")[1]);
});

/** GET on the TLS mesh with the test client certificate and a mesh token. */
function meshGet(path: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `https://${address}${MESH_BASE_PATH}${path}`,
      { ca: CA_CERT, cert: CLIENT_CERT, key: CLIENT_KEY, headers: { "X-Mesh-Token": token } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode!));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const tls = { address: "", scheme: "https" as const, token: MANAGEMENT, ca_cert: CA_CERT, client_cert: CLIENT_CERT, client_key: CLIENT_KEY };

describe("an HTTPS backend", () => {
  it("is reached with the configured CA and client certificate, end to end", async () => {
    const configured = await secrets.root.POST("/consul/config/access", { body: { ...tls, address } });
    expect(configured.response.status, JSON.stringify(configured.error)).toBe(204);
    expect((await secrets.root.POST("/consul/roles/{name}", { params: { path: { name: "web" } }, body: { policies: "web-reader" } })).response.status).toBe(204);
    const { response, data } = await secrets.root.GET("/consul/creds/{name}", { params: { path: { name: "web" } } });
    expect(response.status).toBe(200);
    expect(await meshGet("/discovery-chain/web", data!.data.token)).toBe(200);
    expect(await meshGet("/discovery-chain/api", data!.data.token)).toBe(403);
  });

  // The write stores the settings without a call (path_config.go, pathConfigAccessWrite); a TLS
  // failure shows when a token is made, as the backend client's error with 400 (path_token.go).
  it("is stored without its CA, with another CA, or without a client certificate; creds then fail with 400", async () => {
    for (const body of [
      { address, scheme: "https" as const, token: MANAGEMENT },
      { ...tls, address, ca_cert: OTHER_CA_CERT },
      { address, scheme: "https" as const, token: MANAGEMENT, ca_cert: CA_CERT },
    ]) {
      expect((await secrets.root.POST("/consul/config/access", { body })).response.status).toBe(204);
      const { response, error } = await secrets.root.GET("/consul/creds/{name}", { params: { path: { name: "web" } } });
      expect(response.status).toBe(400);
      expect(error!.errors).toHaveLength(1);
      expect(error!.errors[0]).toMatch(new RegExp(`^Put "https://${address}/v1/acl/token": .+`));
    }
    // Written again with the CA and the client certificate, it works.
    expect((await secrets.root.POST("/consul/config/access", { body: { ...tls, address } })).response.status).toBe(204);
    expect((await secrets.root.GET("/consul/creds/{name}", { params: { path: { name: "web" } } })).response.status).toBe(200);
  });

  it("refuses TLS material that does not fit, without repeating it", async () => {
    const mismatch = await secrets.root.POST("/consul/config/access", { body: { ...tls, address, client_key: SERVER_KEY } });
    expect(mismatch.error).toEqual({ errors: ["client_key is not the private key of client_cert"] });
    const garbled = await secrets.root.POST("/consul/config/access", { body: { ...tls, address, client_key: "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----", ca_cert: "no certificate here" } });
    expect(garbled.error).toEqual({ errors: ["ca_cert must hold one or more PEM certificates", "client_key must be a parsable PEM private key"] });
    const plain = await secrets.root.POST("/consul/config/access", { body: { ...tls, address, scheme: "http" } });
    expect(plain.error).toEqual({ errors: ["ca_cert, client_cert and client_key need scheme https"] });
    const half = await secrets.root.POST("/consul/config/access", { body: { address, scheme: "https", token: MANAGEMENT, client_cert: CLIENT_CERT } });
    expect(half.error).toEqual({ errors: ["client_cert and client_key must be given together"] });
  });
});

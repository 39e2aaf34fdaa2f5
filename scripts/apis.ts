// The APIs this project describes, and where each one is served. One place for every script.
export interface ApiInfo {
  /** Folder under openapi/ and generated/, and the redocly.yaml api name before "@". */
  name: string;
  /** Name of the entry in redocly.yaml. */
  redoclyName: string;
  title: string;
  /** Base path of the reference server. */
  basePath: string;
  serverPort: number;
  mockPort: number;
  /** Name of the client factory exported by generated/<api>/client.ts. */
  clientFactory: string;
}

export const APIS: ApiInfo[] = [
  {
    name: "org-platform",
    redoclyName: "org-platform@v2",
    title: "Organization Platform API",
    basePath: "/api/v2",
    serverPort: 8080,
    mockPort: 4010,
    clientFactory: "createOrgPlatformClient",
  },
  {
    name: "secrets",
    redoclyName: "secrets@v1",
    title: "Secrets Service API",
    basePath: "/v1",
    serverPort: 8200,
    mockPort: 4020,
    clientFactory: "createSecretsClient",
  },
  {
    name: "mesh",
    redoclyName: "mesh@v1",
    title: "Service-Mesh Discovery Chain API",
    basePath: "/v1",
    serverPort: 8500,
    mockPort: 4030,
    clientFactory: "createMeshClient",
  },
];

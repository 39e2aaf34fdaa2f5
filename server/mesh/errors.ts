// An error the mesh answers with a plain-text body and the given status, as the real system does.
export class MeshHttpError extends Error {
  override name = "MeshHttpError";
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 500,
    message: string,
  ) {
    super(message);
  }
}

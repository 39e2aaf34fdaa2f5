import type { RawAnswerFormat } from "../shared/bounds.ts";

// An error the mesh answers with a plain-text body and the given status, as the real system does.
export class MeshHttpError extends Error {
  override name = "MeshHttpError";
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 500,
    message: string,
    /** Headers the answer carries all the same (the index headers of a read that found nothing). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/** The mesh's answers before a request reaches it (431, 408, 503...): plain text, as Go's server words them (`431 Request Header Fields Too Large`). */
export const MESH_RAW_ANSWERS: RawAnswerFormat = {
  contentType: "text/plain; charset=utf-8",
  body: (status, reason, detail) => `${status} ${reason}: ${detail}`,
};

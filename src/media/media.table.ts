export interface MediaTable {
  id: string;
  workspace_id: string;
  /** Where the bytes are in the MediaStore; also the tail of the public `path` URL. */
  storage_key: string;
  /** The name the uploader gave the file (sanitised). */
  name: string;
  /** `image` or `video`. */
  type: string;
  mime_type: string;
  /** Bytes; a bigint column (PostgreSQL answers a string). */
  size: number | string;
  /** SHA-256 of the content, hex; unique per workspace, which is what deduplicates uploads. */
  sha256: string;
  width: number | null;
  height: number | null;
  /** A video's length in milliseconds, read from its movie header when it was stored; null when unknown. */
  duration_ms: number | string | null;
  /** The upload link the file first arrived through, if any. */
  upload_link_id: string | null;
  created_at: string;
}

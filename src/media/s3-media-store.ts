import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { isValidKey, MediaObjectMissingError, type ByteRange, type MediaStore, type StoredObject } from './media-store.ts';

export type S3Settings = {
  /** An S3-compatible endpoint (`https://s3.example.com`); AWS's own when absent. */
  endpoint?: string | undefined;
  bucket: string;
  region: string;
  /** Static credentials; without them the AWS SDK's usual chain applies (environment, profile, instance role). */
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
  /** `https://endpoint/bucket/key` instead of `https://bucket.endpoint/key` (MinIO, Ceph, most self-hosted stores). */
  forcePathStyle: boolean;
  /** Prepended to every key (`media/`), so one bucket can serve several deployments. */
  prefix: string;
};

/** Objects larger than this go up in parts of this size, a few at a time, never whole in memory. */
const PART_BYTES = 8 * 1024 * 1024;

/**
 * Media in an S3-compatible bucket. Request checksums are only sent where S3 requires them,
 * because several S3-compatible stores reject or mis-store the newer streaming checksums.
 */
export class S3MediaStore implements MediaStore {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;

  constructor(settings: S3Settings) {
    this.#bucket = settings.bucket;
    this.#prefix = settings.prefix;
    this.#client = new S3Client({
      region: settings.region,
      ...(settings.endpoint && { endpoint: settings.endpoint }),
      forcePathStyle: settings.forcePathStyle,
      ...(settings.accessKeyId &&
        settings.secretAccessKey && { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }),
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { connectionTimeout: 5000, requestTimeout: 60_000 },
      maxAttempts: 3,
    });
  }

  #key(key: string): string {
    if (!isValidKey(key)) throw new Error(`Invalid media key ${JSON.stringify(key)}`);
    return `${this.#prefix}${key}`;
  }

  async put(key: string, body: Readable, options: { contentType: string }): Promise<{ size: number }> {
    const Key = this.#key(key);
    let size = 0;
    let bodyError: unknown = null;
    async function* counted() {
      try {
        for await (const chunk of body) {
          const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
          size += bytes.length;
          yield bytes;
        }
      } catch (error) {
        bodyError = error;
        throw error;
      }
    }
    const upload = new Upload({
      client: this.#client,
      params: { Bucket: this.#bucket, Key, Body: Readable.from(counted()), ContentType: options.contentType },
      partSize: PART_BYTES,
      queueSize: 2,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
      return { size };
    } catch (error) {
      body.destroy();
      // A request that timed out may still have been stored; nothing must stay under `key`.
      await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key })).catch(() => {});
      // The body's own error (too large, client gone) is the answer, not a failure of the clean-up it caused.
      throw bodyError ?? error;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const object = await this.#client.send(
        new GetObjectCommand({ Bucket: this.#bucket, Key: this.#key(key), ...(range && { Range: `bytes=${range.start}-${range.end}` }) }),
      );
      return object.Body as Readable;
    } catch (error) {
      if (isMissing(error)) throw new MediaObjectMissingError(key);
      throw error;
    }
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const head = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: this.#key(key) }));
      return { size: Number(head.ContentLength ?? 0), modifiedAt: head.LastModified ?? new Date(0) };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.#key(key) }));
  }

  /** Answers when the bucket is reachable with these credentials; for readiness checks. */
  async ping(): Promise<void> {
    await this.#client.send(new HeadBucketCommand({ Bucket: this.#bucket }));
  }

  close(): void {
    this.#client.destroy();
  }
}

function isMissing(error: unknown): boolean {
  if (!(error instanceof S3ServiceException)) return false;
  return error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404;
}

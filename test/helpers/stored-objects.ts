import fs from 'node:fs';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../../src/config.ts';

/**
 * What the media store of a test app holds, whichever store the run selected: files under
 * `DATA_DIR/media` (and the temporary ones of uploads in progress), or the objects under the
 * app's prefix in the S3 bucket (S3 has no visible temporaries: an unfinished upload is not an object).
 * Keys are the media keys (`ab/abcdef….png`), sorted.
 */
export async function storedObjects(config: Config): Promise<{ objects: string[]; temporary: string[] }> {
  const storage = config.storage;
  if (storage.kind === 'local') {
    const root = path.join(config.dataDir, 'media');
    const objects: string[] = [];
    const temporary: string[] = [];
    const walk = (dir: string, into: string[]) => {
      if (!fs.existsSync(dir)) return;
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full, entry.name === '.tmp' && dir === root ? temporary : into);
        else into.push(path.relative(root, full).split(path.sep).join('/'));
      }
    };
    walk(root, objects);
    return { objects: objects.sort(), temporary: temporary.sort() };
  }
  const client = new S3Client({
    region: storage.region,
    ...(storage.endpoint && { endpoint: storage.endpoint }),
    forcePathStyle: storage.forcePathStyle,
    ...(storage.accessKeyId &&
      storage.secretAccessKey && { credentials: { accessKeyId: storage.accessKeyId, secretAccessKey: storage.secretAccessKey } }),
  });
  try {
    const objects: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: storage.bucket, Prefix: storage.prefix, ContinuationToken: token }),
      );
      for (const item of page.Contents ?? []) if (item.Key) objects.push(item.Key.slice(storage.prefix.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return { objects: objects.sort(), temporary: [] };
  } finally {
    client.destroy();
  }
}

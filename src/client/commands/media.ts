import type { Command } from 'commander';
import type { components } from '../api-types.ts';
import { bytes, show, table } from '../output.ts';
import { act, examples, integer, seg } from '../program.ts';
import { formatWhen } from '../time.ts';
import { checkFiles, progressBar, uploadFile } from '../upload.ts';

type S = components['schemas'];

export function register(program: Command): void {
  examples(
    program
      .command('upload <files...>')
      .description('upload files to the media library (images up to 10 MB, MP4 video up to 1 GB); a progress bar shows on a terminal')
      .action(
        act(async ({ out, api }, files: string[]) => {
          const checked = checkFiles(files);
          const results: Array<S['UploadResult'] & { file: string }> = [];
          for (const { file, size: bytes } of checked) {
            const bar = progressBar(file, bytes);
            const result = await uploadFile(api(), file, bytes, bar);
            bar(bytes, true);
            results.push({ file, ...result });
          }
          show(
            out,
            results.map(({ id, path }) => ({ id, path })),
            () => table(['FILE', 'ID', 'PATH'], results.map((r) => [r.file, r.id, r.path]), 'Nothing uploaded.'),
          );
        }),
      ),
    ['herald upload cat.jpg', 'herald upload photos/*.png clip.mp4', 'herald upload banner.png --json | jq -r ".[0].path"'],
  );
  examples(
    program
      .command('upload-url <url>')
      .description('copy a file from a public http(s) address into the media library')
      .action(
        act(async ({ out, api }, url: string) => {
          const result = await api().request<S['UploadResult']>('POST', '/upload-from-url', { json: { url } });
          show(out, result, () => `Uploaded as ${result.id}: ${result.path}`);
        }),
      ),
    ['herald upload-url https://example.com/cat.jpg'],
  );

  const link = examples(program.command('upload-link').description('browser links through which a person without API access drops files into the library'), ['herald upload-link create', 'herald upload-link get upl_123']);
  examples(
    link
      .command('create')
      .description('make an upload link (it lasts two hours)')
      .option('--tz <zone>', 'time zone of the expiry shown')
      .action(
        act(async ({ out, opts, api }) => {
          const l = await api().request<S['UploadLink']>('POST', '/upload-link');
          show(out, l, () => [`Upload link ${l.id}, open until ${formatWhen(l.expiresAt, opts.tz)}:`, l.url]);
        }),
      ),
    ['herald upload-link create', 'herald upload-link create --json'],
  );
  examples(
    link
      .command('get <id>')
      .description('the files dropped through an upload link so far')
      .action(
        act(async ({ out, api }, id: string) => {
          const c = await api().get<S['UploadLinkContents']>(`/upload-link/${seg(id)}`);
          show(out, c, () => (c.status === 'empty' ? `No files yet through link ${c.id}.` : [`${c.count} file(s) through link ${c.id}:`, table(['ID', 'TYPE', 'NAME', 'PATH'], c.files.map((f) => [f.id, f.type, f.name, f.path]), '')]));
        }),
      ),
    ['herald upload-link get upl_123'],
  );

  const media = examples(program.command('media').description('the media library'), ['herald media list', 'herald media delete med_123']);
  examples(
    media
      .command('list')
      .description('the files in the library, newest first')
      .option('--page <n>', 'page number, from 0', integer('--page', 0, 1_000_000))
      .option('--page-size <n>', 'files per page', integer('--page-size', 1, 500))
      .option('--tz <zone>', 'time zone of the times shown')
      .action(
        act(async ({ out, opts, api }) => {
          const page = await api().get<S['MediaPage']>('/media', { page: opts.page as number | undefined, pageSize: opts.pageSize as number | undefined });
          show(out, page, () => [
            table(['ID', 'TYPE', 'SIZE', 'ADDED', 'NAME', 'PATH'], page.results.map((m) => [m.id, m.type, bytes(m.size), formatWhen(m.createdAt, opts.tz), m.name, m.path]), 'The library is empty.'),
            ...(page.pages > 1 ? [`Page ${page.page + 1} of ${page.pages} (${page.total} files): --page <n> for another.`] : []),
          ]);
        }),
      ),
    ['herald media list', 'herald media list --page 1 --page-size 50 --json'],
  );
  examples(
    media
      .command('delete <id>')
      .description('delete a file from the library')
      .action(
        act(async ({ out, api }, id: string) => {
          const d = await api().request<S['DeletedMedia']>('DELETE', `/media/${seg(id)}`);
          show(out, d, () => `Deleted ${d.id}.`);
        }),
      ),
    ['herald media delete med_123'],
  );

  examples(
    program
      .command('notifications')
      .description('failed publishing, disconnected channels and limit warnings, newest first')
      .option('--page <n>', 'page number, from 0', integer('--page', 0, 1_000_000))
      .option('--tz <zone>', 'time zone of the times shown')
      .action(
        act(async ({ out, opts, api }) => {
          const page = await api().get<S['NotificationPage']>('/notifications', { page: opts.page as number | undefined });
          show(out, page, () => [
            table(['WHEN', 'TYPE', 'POST', 'MESSAGE'], page.notifications.map((n) => [formatWhen(n.createdAt, opts.tz), n.type, n.postId, n.message]), 'No notifications.'),
            ...(page.hasMore ? [`More: --page ${page.page + 1}`] : []),
          ]);
        }),
      ),
    ['herald notifications', 'herald notifications --page 1 --json'],
  );
}

import type { Command } from 'commander';
import type { components } from '../api-types.ts';
import { ApiRefusal, UsageError } from '../errors.ts';
import type { Api } from '../http.ts';
import { bytes, fail, show, table, type Out } from '../output.ts';
import { act, examples, integer, seg } from '../program.ts';
import { formatWhen } from '../time.ts';
import { PAGE_WORDING } from '../wording.ts';
import { checkFile, progressBar, uploadFile } from '../upload.ts';

type S = components['schemas'];

/** Whether a failure concerns the file alone (so the next file may go up), rather than the credential or the server. */
function aboutTheFile(error: unknown): boolean {
  return (
    error instanceof UsageError ||
    (error instanceof ApiRefusal && error.status !== 401 && error.status !== 403 && error.status !== 429 && error.status < 500)
  );
}

/** Sends each file that can be sent; a file that fails is reported and the next one goes on. */
async function upload(out: Out, api: Api, files: string[]): Promise<void> {
  const results: Array<{ file: string; id: string; path: string }> = [];
  for (const [i, file] of files.entries()) {
    try {
      const { size } = checkFile(file);
      const bar = progressBar(file, size);
      const { id, path } = await uploadFile(api, file, size, bar);
      bar(size, true);
      results.push({ file, id, path });
    } catch (error) {
      // The server or the credential failed: the files after this one would fail the same way.
      const stop = !aboutTheFile(error);
      const rest = files.slice(i + 1);
      if (stop && rest.length && error instanceof Error) error.message += ` Not sent: ${rest.join(', ')}.`;
      fail(out, error, file);
      if (stop) break;
    }
  }
  show(out, results, () =>
    table(
      ['FILE', 'ID', 'PATH'],
      results.map((r) => [r.file, r.id, r.path]),
      'Nothing uploaded.',
    ),
  );
}

export function register(program: Command): void {
  examples(
    program
      .command('upload <files...>')
      .description(
        'upload files to the media library (images up to 10 MB, MP4 video up to 1 GB); a progress bar shows on a terminal.\n' +
          'Each file is sent on its own: the table lists those that went up, each failure is reported on standard error, and the exit code is not 0 when any failed.',
      )
      .action(act(async ({ out, api }, files: string[]) => upload(out, api(), files))),
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

  const link = examples(
    program.command('upload-link').description('browser links through which a person without API access drops files into the library'),
    ['herald upload-link create', 'herald upload-link get upl_123'],
  );
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
          show(out, c, () =>
            c.status === 'empty'
              ? `No files yet through link ${c.id}.`
              : [
                  `${c.count} file(s) through link ${c.id}:`,
                  table(
                    ['ID', 'TYPE', 'NAME', 'PATH'],
                    c.files.map((f) => [f.id, f.type, f.name, f.path]),
                    '',
                  ),
                ],
          );
        }),
      ),
    ['herald upload-link get upl_123'],
  );

  const media = examples(program.command('media').description('the media library'), ['herald media list', 'herald media delete med_123']);
  examples(
    media
      .command('list')
      .description('the files in the library, newest first')
      .option('--page <n>', 'page number, from 0 (the listing reaches the newest 10,000 files)', integer('--page', 0, 9_999))
      .option('--page-size <n>', 'files per page (1 to 100)', integer('--page-size', 1, 100))
      .option('--tz <zone>', 'time zone of the times shown')
      .action(
        act(async ({ out, opts, api }) => {
          const page = await api().get<S['MediaPage']>('/media', {
            page: opts.page as number | undefined,
            pageSize: opts.pageSize as number | undefined,
          });
          show(out, page, () => [
            table(
              ['ID', 'TYPE', 'SIZE', 'ADDED', 'NAME', 'PATH'],
              page.results.map((m) => [m.id, m.type, bytes(m.size), formatWhen(m.createdAt, opts.tz), m.name, m.path]),
              'The library is empty.',
            ),
            ...(page.pages > 1 ? [`Page ${page.page + 1} of ${page.pages} (${page.total} files): --page <n> for another.`] : []),
          ]);
        }, PAGE_WORDING),
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
      .option('--page <n>', 'page number, from 0 to 499', integer('--page', 0, 499))
      .option('--tz <zone>', 'time zone of the times shown')
      .action(
        act(async ({ out, opts, api }) => {
          const page = await api().get<S['NotificationPage']>('/notifications', { page: opts.page as number | undefined });
          show(out, page, () => [
            table(
              ['WHEN', 'TYPE', 'POST', 'MESSAGE'],
              page.notifications.map((n) => [formatWhen(n.createdAt, opts.tz), n.type, n.postId, n.message]),
              'No notifications.',
            ),
            ...(page.hasMore ? [`More: --page ${page.page + 1}`] : []),
          ]);
        }, PAGE_WORDING),
      ),
    ['herald notifications', 'herald notifications --page 1 --json'],
  );
}

import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

// Every write to posts and their parts is a move of PostTransitions (src/posts/post-transitions.ts),
// so that each checks the state it starts from and counts in the version: no other module calls
// the statements that write them, and only the posts repositories hold such statements.
const src = new URL('../../src/', import.meta.url);
const files = fs.readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.includes('db/migrations/'));
const read = (file: string) => fs.readFileSync(new URL(file, src), 'utf8');

const WRITER = 'posts/post-transitions.ts';
const REPOSITORIES = ['posts/posts.repository.ts', 'posts/post-claims.repository.ts'];
const WRITES = [
  'insertPost',
  'insertPosts',
  'insertParts',
  'insertMediaLinks',
  'deleteParts',
  'replaceMediaLinks',
  'updatePostIf',
  'updatePartIf',
  'deleteChannelPosts',
  'claimDuePost',
  'claimDuePosts',
  'claimNextPart',
  'claimFirstParts',
  'claimDueSteps',
  'recordPartPublished',
  'recordPostPublished',
  'recordAllPublished',
  'failPendingPartsAfter',
  'restorePartsAfter',
];

describe('posts and parts have one writer', () => {
  it('no module but PostTransitions calls a statement that writes posts or parts', () => {
    const callers = files
      .filter((file) => file !== WRITER && !REPOSITORIES.includes(file))
      .flatMap((file) => [...read(file).matchAll(new RegExp(`\\b(${WRITES.join('|')})\\b`, 'g'))].map((m) => `${file}: ${m[1]}`));
    expect(callers).toEqual([]);
  });

  it('no module but the posts repositories holds a statement that writes posts or parts', () => {
    const statements = files
      .filter((file) => !REPOSITORIES.includes(file))
      .flatMap((file) =>
        [...read(file).matchAll(/\b(?:updateTable|insertInto|deleteFrom)\(\s*'(?:posts|post_parts|post_media)'/g)].map(
          (m) => `${file}: ${m[0]}`,
        ),
      );
    expect(statements).toEqual([]);
  });

  it('is built once, where the services are', () => {
    const builders = files.filter((file) => /\bnew PostTransitions\(/.test(read(file)));
    expect(builders).toEqual(['services.ts']);
  });
});

// Instagram's people tags and reel covers, through the API and the engine against the local Graph
// API server: user_tags on an image's container and on a carousel's image items (never on the
// carousel), a reel's cover from an image attached beside the video (cover_url, the image not
// posted itself) or a frame (thumb_offset), the settings' checks (positions 0 to 1) and what
// /missing reports for tags and covers that Instagram would refuse.
import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, TEST_BASE_URL, type Tenant, type TestApp } from '../../helpers/app.ts';
import { jpeg, mp4, png } from '../../helpers/media-files.ts';
import { createOk, getPost, missingOf, uploadMedia } from '../../helpers/posts.ts';
import type { FakeMeta } from '../oauth/fake-meta.ts';
import { useMetaApp } from '../oauth/meta-app.ts';
import { signInThroughApi } from '../oauth/sign-in.ts';

const app = useMetaApp();
let t: TestApp;
let meta: FakeMeta;
beforeAll(() => {
  ({ t, meta } = app);
});

async function connected(): Promise<{ tenant: Tenant; channelId: string }> {
  const tenant = await createTenant(t);
  const { channels } = await signInThroughApi(t, tenant, { provider: 'instagram' });
  return { tenant, channelId: channels[0]!.id };
}

const post = (channelId: string, value: Array<Record<string, unknown>>, settings: Record<string, unknown> = {}) => ({
  type: 'now',
  date: new Date().toISOString(),
  posts: [{ integration: { id: channelId }, value, settings: { __type: 'instagram', ...settings } }],
});

const pathOf = (url: string | undefined) => (url ? new URL(url).pathname : undefined);

async function published(tenant: Tenant, body: unknown) {
  const [created] = await createOk(t, tenant, body);
  await t.settle();
  const read = await getPost(t, tenant, created!.postId);
  expect(read.value[0]!.state, JSON.stringify(read)).toBe('PUBLISHED');
  return read;
}

describe('Instagram people tags and reel covers', () => {
  it('tags people on a single image, and on the images of a carousel (on the items, not the carousel)', async () => {
    const { tenant, channelId } = await connected();
    const photo = await uploadMedia(t, tenant, jpeg(40, 40), 'team.jpg', 'image/jpeg');
    await published(
      tenant,
      post(channelId, [{ content: '<p>The team</p>', image: [photo] }], {
        userTags: [
          { username: 'herald.friends', x: 0.25, y: 0.5 },
          { username: 'herald_baker', x: 1, y: 0 },
        ],
      }),
    );
    const [single] = meta.igMedia;
    expect(JSON.parse(single!.params.user_tags!)).toEqual([
      { username: 'herald.friends', x: 0.25, y: 0.5 },
      { username: 'herald_baker', x: 1, y: 0 },
    ]);

    meta.reset();
    const a = await uploadMedia(t, tenant, jpeg(40, 40, 90), 'a.jpg', 'image/jpeg');
    const b = await uploadMedia(t, tenant, jpeg(40, 40, 160), 'b.jpg', 'image/jpeg');
    const clip = await uploadMedia(t, tenant, mp4(64, 64, { seconds: 5 }), 'c.mp4', 'video/mp4');
    await published(
      tenant,
      post(channelId, [{ content: '<p>Three</p>', image: [a, clip, b] }], {
        userTags: [
          { username: 'on.b', x: 0.1, y: 0.9, media: b.id },
          { username: 'on.a', x: 0.5, y: 0.5, media: a.id },
        ],
      }),
    );
    const items = [...meta.containers.values()].filter((c) => c.params.is_carousel_item === 'true');
    expect(items.map((c) => [pathOf(c.params.image_url ?? c.params.video_url), c.params.user_tags ?? null])).toEqual([
      [pathOf(new URL(a.path, TEST_BASE_URL).toString()), JSON.stringify([{ username: 'on.a', x: 0.5, y: 0.5 }])],
      [pathOf(new URL(clip.path, TEST_BASE_URL).toString()), null],
      [pathOf(new URL(b.path, TEST_BASE_URL).toString()), JSON.stringify([{ username: 'on.b', x: 0.1, y: 0.9 }])],
    ]);
    const carousel = [...meta.containers.values()].find((c) => c.params.media_type === 'CAROUSEL')!;
    expect(carousel.params.user_tags).toBeUndefined();
  });

  it('publishes a reel with an attached image as its cover (not posted itself), or with a frame as the cover', async () => {
    const { tenant, channelId } = await connected();
    const video = await uploadMedia(t, tenant, mp4(540, 960, { seconds: 8 }), 'reel.mp4', 'video/mp4');
    const cover = await uploadMedia(t, tenant, jpeg(54, 96), 'cover.jpg', 'image/jpeg');
    await published(
      tenant,
      post(channelId, [{ content: '<p>With a cover</p>', image: [video, cover] }], { postType: 'reel', cover: cover.id }),
    );
    const [reel] = meta.igMedia;
    expect(reel!.type).toBe('REELS');
    expect(pathOf(reel!.params.cover_url)).toBe(pathOf(new URL(cover.path, TEST_BASE_URL).toString()));
    expect(reel!.urls.map(pathOf)).toEqual([pathOf(new URL(video.path, TEST_BASE_URL).toString())]);
    expect(reel!.params.thumb_offset).toBeUndefined();

    meta.reset();
    await published(tenant, post(channelId, [{ content: '<p>A frame</p>', image: [video] }], { coverOffsetMs: 2500 }));
    expect(meta.igMedia[0]!.params).toMatchObject({ media_type: 'REELS', thumb_offset: '2500' });
    expect(meta.igMedia[0]!.params.cover_url).toBeUndefined();
  });

  it('refuses tag positions outside the image in the settings, and reports in /missing the tags and covers Instagram would refuse', async () => {
    const { tenant, channelId } = await connected();
    const photo = await uploadMedia(t, tenant, jpeg(40, 40), 'p.jpg', 'image/jpeg');
    const other = await uploadMedia(t, tenant, jpeg(40, 40, 30), 'o.jpg', 'image/jpeg');
    const picture = await uploadMedia(t, tenant, png(54, 96), 'cover.png', 'image/png');
    const video = await uploadMedia(t, tenant, mp4(540, 960, { seconds: 4 }), 'reel.mp4', 'video/mp4');
    const refused = await t.request({
      method: 'POST',
      url: '/public/v1/posts',
      key: tenant.key,
      payload: {
        ...post(channelId, [{ content: '<p>x</p>', image: [photo] }], { userTags: [{ username: 'x', x: 1.5, y: 0 }] }),
        type: 'draft',
      },
    });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.body).toContain('userTags');

    const missing = (image: unknown[], settings: Record<string, unknown>) =>
      missingOf(t, tenant, post(channelId, [{ content: '<p>x</p>', image }], settings));
    const tag = (extra: Record<string, unknown> = {}) => ({ username: 'herald.friends', x: 0.5, y: 0.5, ...extra });
    expect(await missing([photo, other], { userTags: [tag()] })).toEqual([
      {
        field: 'settings.userTags.0.media',
        reason: 'On a carousel, the tag of @herald.friends must name the image it goes on (its media id).',
      },
    ]);
    expect(await missing([photo, video], { userTags: [tag({ media: video.id })] })).toEqual([
      { field: 'settings.userTags.0.media', reason: 'Instagram tags people on images; reel.mp4 is a video.' },
    ]);
    expect(await missing([photo], { userTags: [tag({ media: other.id })] })).toEqual([
      { field: 'settings.userTags.0.media', reason: "The tag of @herald.friends names media that is not among this post's images." },
    ]);
    expect(await missing([video], { userTags: [tag()] })).toEqual([
      { field: 'settings.userTags', reason: 'Herald tags people on images and carousel images only, not on reels or stories.' },
    ]);
    const many = Array.from({ length: 21 }, (_, i) => tag({ username: `friend${i}` }));
    expect(await missing([photo], { userTags: many })).toEqual([
      { field: 'settings.userTags', reason: 'p.jpg has 21 people tagged; Instagram takes 20.' },
    ]);
    expect(await missing([photo], { userTags: [tag({ media: photo.id })] })).toEqual([]);

    expect(await missing([video], { postType: 'reel', cover: other.id })).toEqual([
      { field: 'settings.cover', reason: "The cover image must be attached to the post beside the reel's video." },
    ]);
    // A PNG is refused by the media rules too; the cover's own reason says what a cover must be.
    expect(await missing([video, picture], { postType: 'reel', cover: picture.id })).toEqual([
      { field: 'value[0].image[1]', reason: 'Instagram does not take image/png files.' },
      { field: 'settings.cover', reason: 'cover.png is image/png; Instagram takes JPEG reel covers.' },
    ]);
    expect(await missing([photo, other], { cover: other.id })).toEqual([
      { field: 'settings.cover', reason: 'A cover image goes with a reel only.' },
    ]);
    expect(await missing([video, other], { postType: 'reel', cover: other.id, coverOffsetMs: 100 })).toEqual([
      { field: 'settings.coverOffsetMs', reason: 'Give a cover image or a cover frame, not both.' },
    ]);
    expect(await missing([video], { coverOffsetMs: 5000 })).toEqual([
      { field: 'settings.coverOffsetMs', reason: 'The cover frame is at 5000 ms; reel.mp4 lasts 4000 ms.' },
    ]);
    expect(await missing([photo], { coverOffsetMs: 0 })).toEqual([
      { field: 'settings.coverOffsetMs', reason: 'A cover frame goes with a reel only.' },
    ]);
    expect(await missing([video, other], { postType: 'reel', cover: other.id })).toEqual([]);

    // The channel's rules describe both settings.
    const rules = await t.request({ method: 'GET', url: `/public/v1/integration-settings/${channelId}`, key: tenant.key });
    const properties = (rules.json() as { settings: { properties: Record<string, { description?: string }> } }).settings.properties;
    expect(properties.userTags!.description).toContain('x, y from the top-left corner, 0 to 1');
    expect(properties.cover!.description).toContain('cover_url');
    expect(properties.coverOffsetMs!.description).toContain('thumb_offset');
  });
});

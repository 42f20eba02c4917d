/** What the page says about the signed-in member (set by the server in the page's head). */
export type Viewer = { role: string; workspace: string };

/** The member's role decides what the app offers; the API refuses the rest anyway. */
export function mayMovePosts(role: string): boolean {
  return ['owner', 'admin', 'editor', 'contributor'].includes(role);
}

/** Drafts: every role but a viewer (contributors' scheduled posts may await approval, as the API decides). */
export function mayCompose(role: string): boolean {
  return mayMovePosts(role);
}

/** Publishing now, the queue and series need `posts:publish`: editors and up. */
export function mayPublish(role: string): boolean {
  return ['owner', 'admin', 'editor'].includes(role);
}

/** Uploading to and deleting from the media library, sharing upload links (the API's `media:write`). */
export function mayUseMedia(role: string): boolean {
  return ['owner', 'admin', 'editor', 'contributor'].includes(role);
}

/** Connecting, changing and deleting channels (the API's `channels:write`). */
export function mayManageChannels(role: string): boolean {
  return ['owner', 'admin'].includes(role);
}

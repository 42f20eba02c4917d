// Generated from openapi/public-api-v1.json by `npm run openapi`: do not edit by hand.
export interface paths {
    "/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What this service is and how to use it
         * @description Works without any credential. Its `time` is the authoritative clock for scheduling.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Status"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/is-connected": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Check that the credential reaches a workspace
         * @description True when the credential is valid and points at a workspace with API access. A valid key whose owner is no longer a member of any workspace it may act in answers `false`. An invalid credential is a 401; a key spanning several workspaces without `showorg` is a 403.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ConnectionCheck"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/workspaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the workspaces this key can act in
         * @description Works without `showorg`. With `showorg`, that workspace is marked `current`; with a single workspace, it is.
         */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Workspace"][];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/integrations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List channels
         * @description A key limited to certain channels sees only those; it is never refused with 403 for that. An unknown `group` is a 404.
         */
        get: {
            parameters: {
                query?: {
                    /** @description Only channels of this client group (`customer.id`). */
                    group?: string;
                };
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Channel"][];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the platforms channels can be connected to
         * @description Every platform this server offers: its `identifier` (the `provider` of POST /integrations/connect), how a channel of it is connected (`sign-in` through the platform's page, or a `form` of credentials checked at once), whether the operator's setup allows it now, and the fields the connect request takes, generated from the platform's own configuration schema (the one the connect request is checked against): name, label, type, whether required, whether a secret.
         */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Provider"][];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/integrations/connect": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Connect a channel
         * @description Platforms with a browser sign-in (`mastodon` with `instance`; `linkedin`, `linkedin-page`, `x`, `threads`, `reddit`, `facebook`, `instagram`, `instagram-standalone`, `youtube`, `google-business`, and the others the README lists as signed in through the operator's app) answer `{url}`: open it, sign in, and the platform comes back to Herald, which creates the channel (for `linkedin-page` and `facebook`, after the person picks one of their pages when they administer several; for `instagram`, one of the Instagram accounts linked to their pages; for `youtube` and `google-business`, one of their channels or business locations). These need the operator's app for that platform: without it they answer 400 `provider_unavailable` saying which variables to set. The link works once, for 15 minutes, and only while the key that asked may still connect channels. Platforms with a token, key or password take the credentials in the body (the fields of the platform's configuration, see the README; `lemmy` takes `instance`, `username`, `password` and, for an account with two-factor codes, the current `totp`); Herald checks them with the platform at once and creates the channel with the account's name, handle and picture. When the check fails, nothing is stored and the answer says what happened: 400 `platform_refused` when the platform refused the credentials or answered another client error (with its reason), 400 `outbound_refused` when Herald's outbound policy refused the platform's address (nothing was sent), 502 `platform_unreachable` when the platform could not be reached (connection refused, a name that does not resolve, no answer in time), 502 `platform_transient` when it answered with a server error, 502 `platform_rate_limited` when it asks to wait (`Retry-After`). The same answers come from a browser sign-in's steps. A `webhook` channel connected without `secret` gets a generated Standard Webhooks signing secret (`whsec_…`), returned once in the answer's `secret` and never shown again. Connecting an account the workspace already has reconnects that channel (same id, `reconnected: true`). A plan whose channels are all in use answers 402; a key limited to certain channels cannot connect new ones (403).
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ConnectChannelInput"];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ConnectResult"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/integrations/{id}/reconnect": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reconnect a channel
         * @description Keeps the channel id, its posts and settings. With new credentials (token platforms; a field given as null is removed) they are checked with the platform and must belong to the same account; a failed check answers as POST /integrations/connect does (`platform_refused`, `outbound_refused`, `platform_unreachable`…). On browser sign-in platforms, a body without credentials answers `{url}` to sign in again as the same account. The channel is enabled again.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    /** @description The channel ID. */
                    id: string;
                };
                cookie?: never;
            };
            /** @description The configuration fields to change (new credentials); null removes a field. Empty on browser sign-in platforms to sign in again. */
            requestBody: {
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ConnectResult"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/integrations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a channel
         * @description Deletes the channel and keeps its posts. While posts are scheduled on it the answer is 409 `channel_has_scheduled_posts` naming them (`posts`); with `force=true` they are moved to draft, so none is published. A post being published at that moment refuses it with 409 `post_publishing`. The deleted channel leaves GET /integrations, GET /integration-settings/:id and the plan's channel count, and publishes nothing; its drafts and published history stay readable through GET /posts and GET /posts/:id (their `integration` keeps the deleted channel's id and platform) and can be deleted, but scheduling or creating posts for it answers 409 `channel_deleted`. Connecting the same account again (POST /integrations/connect) restores the channel under the same id, with its name, client group, preferred settings and posts, and new credentials.
         */
        delete: {
            parameters: {
                query?: {
                    /** @description `true`: move the channel's scheduled posts to draft (they are kept with the deleted channel), instead of refusing. */
                    force?: "true" | "false";
                };
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    /** @description The channel ID. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The channel ID. Every call that needs a channel takes it as `integration.id`. */
                            id: string;
                            /** @description Display name. */
                            name: string;
                            /** @description Platform ID (e.g. `bluesky`, `webhook`); equals `settings.__type` when posting. */
                            identifier: string;
                            /** @description Profile picture URL. */
                            picture: string;
                            /** @description Whether the channel cannot post right now. */
                            disabled: boolean;
                            /** @description Why it is disabled, e.g. `needs_reconnect`; null when enabled. */
                            disabledReason: string | null;
                            /** @description The channel's handle, without the at sign; empty when the platform has none. */
                            profile: string;
                            /** @description The client group the channel is filed under. */
                            customer: components["schemas"]["ClientGroup"] | null;
                            /** @enum {boolean} */
                            deleted: true;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /**
         * Rename a channel, file it under a client group, set its preferred settings
         * @description Fields left out are kept; `group: null` and `preferredSettings: null` clear them. `preferredSettings` are checked against the channel's settings schema (GET /integration-settings/:id) and apply to posts that leave a setting out.
         */
        patch: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    /** @description The channel ID. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description New display name. */
                        name?: string;
                        /** @description Client group (`customer.id`); null removes it from its group. */
                        group?: string | null;
                        /** @description Post settings used when a post leaves them out (checked against the channel's settings schema); null clears them. */
                        preferredSettings?: {
                            [key: string]: unknown;
                        } | null;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Channel"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/groups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List client groups */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ClientGroup"][];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/integration-settings/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A channel's settings schema, limits and tools */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    /** @description The channel ID. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ChannelSettings"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/integration-trigger/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run one of a channel's tools
         * @description `methodName` is a tool from GET /integration-settings/:id; `data` is checked against its input schema. An unknown name is a 400 that lists the tools.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    /** @description The channel ID. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The tool's name. */
                        methodName: string;
                        /**
                         * @description The tool's parameters.
                         * @default {}
                         */
                        data?: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            responses: {
                /** @description The tool's result. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": unknown;
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/posts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the calendar
         * @description Posts whose publish date is within the window (inclusive), oldest first (then by id). The window is at most one year. An answer holds at most 1000 posts (or `limit`: a calendar that shows a page at a time asks for what it shows), and fewer when the posts are large (about 4 MB of content): when the window has more, `nextCursor` is set; send it back as `cursor` with the same window and filters for the next page, until `nextCursor` is null. Posts of deleted channels are included (their `integration` is the deleted channel's id, which GET /integrations no longer lists).
         */
        get: {
            parameters: {
                query: {
                    /** @description Start of the window (inclusive), ISO 8601 UTC. */
                    startDate: string;
                    /** @description End of the window (inclusive), ISO 8601 UTC; at most one year after the start. */
                    endDate: string;
                    /** @description Only posts of channels in this client group. */
                    customer?: string;
                    /** @description Posts per page, 1 to 1000. Without it an answer holds the whole window, up to 1000 posts. */
                    limit?: number;
                    /** @description The `nextCursor` of the previous answer, with the same window and filters: the page after it. */
                    cursor?: string;
                    /** @description Only these properties of each post, comma-separated (e.g. `id,publishDate,state,integration`), in the order of the Post schema; without it every property. Any of: `id`, `group`, `state`, `series`, `publishDate`, `integration`, `content`, `value`, `settings`, `tags`, `shortLink`, `releaseId`, `releaseURL`, `error`, `errorKind`, `publishedAt`, `createdAt`, `updatedAt`, `approvals`. A calendar that shows neither `content` nor `value` gets a smaller answer, read with less work. */
                    fields?: string;
                };
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["PostList"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Create, schedule or publish posts (one per channel)
         * @description Scopes: `posts:draft`, plus `posts:publish` for `schedule`, `queue` and `now`, except for a role whose posts need approval (PUT /approval-settings): its scheduled posts enter `AWAITING_APPROVAL` instead of the queue, with `posts:draft` alone. Each item of the answer carries the composition's `group`. With `group`, the existing composition is updated in place (to change one post, PATCH /posts/:id). Send `Idempotency-Key` to make a retry safe: `now` cannot be undone. A plan's monthly post quota answers 402. A published composition cannot be edited (400 `invalid_transition`). A deleted channel takes no posts (409 `channel_deleted`). While a post is being published (state `PUBLISHING`) it cannot be changed: this answers 409 with code `post_publishing`; read the post again once it is `PUBLISHED` or `ERROR`.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Makes a retried call safe: the same key with the same body (and path) returns the first answer and does nothing again; with another body it is a 400. Keys are per workspace (any key of the workspace that may make the request gets the first answer; every permission check runs before an answer is replayed) and kept 48 hours, after which the key is free again. While the first request runs, a retry waits up to 5 seconds, then gets 409 `idempotency_in_progress`; a request the server never finished (it stopped mid-way, and nothing was written) releases its key after 2 minutes, and a retry then redoes it. */
                    "idempotency-key"?: string;
                    /** @description The workspace to act on, when the key spans several. */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CreatePostsInput"];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CreatedPost"][];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/posts/measure": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Count a thread's text as each channel's platform counts it
         * @description Nothing is stored. For each channel, each part of `value` is converted as a publish converts it (plain text, Markdown or HTML, per platform) and counted as the platform counts it: X weighs links as 23 and wide characters as 2; Mastodon counts links as 23 and a mention `@user@domain` by its `@user`; YouTube counts bytes. `max` is the channel's limit with these settings (X's `longPosts`, a Mastodon instance's own limit), and `over` says the readiness check (GET /posts/:id/missing) and the publish would refuse the text for its length. Scope `posts:read`. A channel of another workspace, or outside a channel-limited key, answers 404. At most 20 channels, 26 parts and 20,000 characters of content in all (400). Short links (`shortLink`) are not applied: the count is of the links as written.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["MeasureTextInput"];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["TextMeasure"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/posts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read one post
         * @description A post of a deleted channel stays readable: `integration` keeps the deleted channel's id and platform.
         */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Post"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        /**
         * Replace one post as a whole
         * @description The post for its channel as one item of POST /posts gives it, with `type` and `date`: every field is replaced, and one left out takes its default (no settings, no tags, no short links). PATCH /posts/:id changes only what it is given. The same rules as an edit through the group (POST /posts with `group`): the post must be a draft, scheduled, awaiting approval or in error (a published one answers 400 `invalid_transition`); scopes `posts:draft`, plus `posts:publish` when the post is or becomes scheduled (or is published with `now`), unless the caller's role needs approval: its scheduled post then awaits approval (`AWAITING_APPROVAL`), and its edit of an approved post sends it back; a key limited to other channels gets 404, as for another workspace's post. A scheduled post's new content is what the engine publishes: an edit lands before the engine takes the post, or is refused. If another edit landed between this one's read and its write, it answers 409 `post_changed`: read the post and send it again. Send `Idempotency-Key` to make a retry safe. While a post is being published (state `PUBLISHING`) it cannot be changed: this answers 409 with code `post_publishing`; read the post again once it is `PUBLISHED` or `ERROR`.
         */
        put: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Makes a retried call safe: the same key with the same body (and path) returns the first answer and does nothing again; with another body it is a 400. Keys are per workspace (any key of the workspace that may make the request gets the first answer; every permission check runs before an answer is replayed) and kept 48 hours, after which the key is free again. While the first request runs, a retry waits up to 5 seconds, then gets 409 `idempotency_in_progress`; a request the server never finished (it stopped mid-way, and nothing was written) releases its key after 2 minutes, and a retry then redoes it. */
                    "idempotency-key"?: string;
                    /** @description The workspace to act on, when the key spans several. */
                    showorg?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ReplacePostInput"];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Post"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        post?: never;
        /**
         * Remove a post
         * @description Its scheduled publishing stops. A post already published is removed from the calendar only, not from the platform. While a post is being published (state `PUBLISHING`) it cannot be changed: this answers 409 with code `post_publishing`; read the post again once it is `PUBLISHED` or `ERROR`.
         */
        delete: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Deleted"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /**
         * Edit one post in place
         * @description Each field given replaces the post's; the rest stays: `content`, `image` and `comments` change parts of the thread (or `value` replaces it whole), `settings` are merged key by key (null removes one), `tags` and `shortLink` replace theirs, `date` moves it, `type` moves it between draft, scheduled and published now. Its other posts of the group are left alone. An empty change answers 400 `nothing_to_change`. The answer is the post as edited. The same rules as an edit through the group (POST /posts with `group`): the post must be a draft, scheduled, awaiting approval or in error (a published one answers 400 `invalid_transition`); scopes `posts:draft`, plus `posts:publish` when the post is or becomes scheduled (or is published with `now`), unless the caller's role needs approval: its scheduled post then awaits approval (`AWAITING_APPROVAL`), and its edit of an approved post sends it back; a key limited to other channels gets 404, as for another workspace's post. A scheduled post's new content is what the engine publishes: an edit lands before the engine takes the post, or is refused. If another edit landed between this one's read and its write, it answers 409 `post_changed`: read the post and send it again. Send `Idempotency-Key` to make a retry safe. While a post is being published (state `PUBLISHING`) it cannot be changed: this answers 409 with code `post_publishing`; read the post again once it is `PUBLISHED` or `ERROR`.
         */
        patch: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Makes a retried call safe: the same key with the same body (and path) returns the first answer and does nothing again; with another body it is a 400. Keys are per workspace (any key of the workspace that may make the request gets the first answer; every permission check runs before an answer is replayed) and kept 48 hours, after which the key is free again. While the first request runs, a retry waits up to 5 seconds, then gets 409 `idempotency_in_progress`; a request the server never finished (it stopped mid-way, and nothing was written) releases its key after 2 minutes, and a retry then redoes it. */
                    "idempotency-key"?: string;
                    /** @description The workspace to act on, when the key spans several. */
                    showorg?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["UpdatePostInput"];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Post"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/posts/{id}/missing": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What a publish would lack right now
         * @description Required platform settings, media, title, text over the platform's limit, a channel that needs reconnecting: each entry names the field and the reason. Empty when ready. A post of a deleted channel answers 409 `channel_deleted`.
         */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["MissingCheck"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/posts/{id}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Move a post between draft and scheduled
         * @description `schedule` moves a draft into the queue for its date (or, for a role that needs approval, into `AWAITING_APPROVAL`: scope `posts:draft` is then enough; otherwise `posts:publish`); `draft` takes a scheduled post (or one awaiting approval) out. Any other move is a 400. Asking for the current state changes nothing. A post of a deleted channel cannot be scheduled (409 `channel_deleted`) until the channel is restored by connecting its account again. While a post is being published (state `PUBLISHING`) it cannot be changed: this answers 409 with code `post_publishing`; read the post again once it is `PUBLISHED` or `ERROR`.
         */
        put: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * @description `schedule` moves a draft into the queue for its date; `draft` takes a scheduled post out of it.
                         * @enum {string}
                         */
                        status: "draft" | "schedule";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Post"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/posts/{id}/release-id": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Record the platform's ID (and URL) for a post
         * @description No state change. While a post is being published (state `PUBLISHING`) it cannot be changed: this answers 409 with code `post_publishing`; read the post again once it is `PUBLISHED` or `ERROR`. So does a post one of whose comments is being sent.
         */
        put: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The post's ID on the platform. */
                        releaseId: string;
                        /**
                         * Format: uri
                         * @description The post's address on the platform.
                         */
                        releaseURL?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Post"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/posts/group/{group}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove every post of a group
         * @description All or none: while one of them is being published, none is removed. While a post is being published (state `PUBLISHING`) it cannot be changed: this answers 409 with code `post_publishing`; read the post again once it is `PUBLISHED` or `ERROR`.
         */
        delete: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    group: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Deleted"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/schedule": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the workspace's default posting schedule
         * @description The weekly slots a channel without a schedule of its own queues posts into. Until the workspace sets one, Herald's built-in default applies (`source: "default"`): every day at 09:00, 12:00 and 17:00 UTC. Slots are in week order (Sunday first), each once.
         */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["PostingSchedule"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        /**
         * Set the workspace's default posting schedule
         * @description Replaces the default schedule; posts already scheduled keep their dates. An unknown time zone is a 400 `invalid_time_zone`; a key limited to certain channels is refused (403 `channel_limited_key`). Slots are in week order (Sunday first), each once.
         */
        put: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["SetPostingScheduleInput"];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["PostingSchedule"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/integrations/{id}/schedule": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a channel's posting schedule
         * @description The schedule the channel's queue uses: its own (`source: "channel"`), else the workspace's default (`workspace`), else the built-in one (`default`). Slots are in week order (Sunday first), each once.
         */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    /** @description The channel ID. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["PostingSchedule"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        /**
         * Set a channel's posting schedule
         * @description Gives the channel a schedule of its own, replacing any it had; posts already scheduled keep their dates. An unknown time zone is a 400 `invalid_time_zone`. Slots are in week order (Sunday first), each once.
         */
        put: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    /** @description The channel ID. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["SetPostingScheduleInput"];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["PostingSchedule"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        post?: never;
        /**
         * Remove a channel's own posting schedule
         * @description The channel uses the workspace's default schedule again; the answer is that schedule.
         */
        delete: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    /** @description The channel ID. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["PostingSchedule"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/find-slot/{channelId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A channel's next free slot
         * @description The first slot of the channel's schedule after now that none of its posts holds (drafts do not hold slots): where POST /posts with `type: "queue"` would put a post at this moment. Read-only: another request may take the slot before yours; the queue itself never gives one slot twice. 409 `no_free_slot` when the schedule has no free slot within a year.
         */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    /** @description The channel ID. */
                    channelId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["FreeSlot"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/approval-settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read who needs approval before publishing
         * @description The roles whose scheduled posts wait for approval, and who may approve. With approval on for a role (PUT /approval-settings), a post that role schedules (a date, `now` or the queue; scope `posts:draft` is then enough) enters `AWAITING_APPROVAL` instead of the queue and is never published while it waits; an edit of it keeps it waiting, and an edit of an approved post by such a role sends it back. Approvers are owners, admins, and editors unless editors themselves need approval.
         */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApprovalSettings"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        /**
         * Set who needs approval before publishing
         * @description Owners and admins only (403 `role_forbidden` otherwise). Replaces the list of roles; `[]` turns approval off. Posts already awaiting approval keep waiting for a decision. With approval on for a role (PUT /approval-settings), a post that role schedules (a date, `now` or the queue; scope `posts:draft` is then enough) enters `AWAITING_APPROVAL` instead of the queue and is never published while it waits; an edit of it keeps it waiting, and an edit of an approved post by such a role sends it back. Approvers are owners, admins, and editors unless editors themselves need approval.
         */
        put: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["SetApprovalSettingsInput"];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApprovalSettings"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/posts/awaiting-approval": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the posts awaiting approval
         * @description Earliest publish date first, at most 500, each with its `approvals` steps. A key limited to some channels sees their posts only.
         */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AwaitingApproval"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/posts/{id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a post awaiting approval
         * @description Approvers only (403 `approval_forbidden` for other roles). The post enters the queue for its publish date; if that date has passed it is published at once and its publish date becomes the approval time. The decision (who, when, comment) is added to the post's `approvals`. Approving an approved post again answers it unchanged. A rejected post (another approver was first) answers 409 `post_changed`, as does one changed meanwhile (an edit, or a decision made between the read and this one): of two approvers deciding at once, one decision stands and the other gets the 409. A post in another state answers 400 `not_awaiting_approval`. Send `Idempotency-Key` to make a retry safe: the same key answers the first answer (even once another decision was made since), and the same key with another post or comment is a 400 `idempotency_key_reused`.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Makes a retried call safe: the same key with the same body (and path) returns the first answer and does nothing again; with another body it is a 400. Keys are per workspace (any key of the workspace that may make the request gets the first answer; every permission check runs before an answer is replayed) and kept 48 hours, after which the key is free again. While the first request runs, a retry waits up to 5 seconds, then gets 409 `idempotency_in_progress`; a request the server never finished (it stopped mid-way, and nothing was written) releases its key after 2 minutes, and a retry then redoes it. */
                    "idempotency-key"?: string;
                    /** @description The workspace to act on, when the key spans several. */
                    showorg?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ApprovePostInput"];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Post"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/posts/{id}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reject a post awaiting approval
         * @description Approvers only (403 `approval_forbidden` for other roles). `comment` (required) says why; the post becomes a draft, the decision is added to its `approvals`, and the author is notified (notification `post_rejected`, webhook event `post.rejected`). The same rejection sent again answers the post unchanged. An approved post (another approver was first) answers 409 `post_changed`, as does one changed meanwhile: of two approvers deciding at once, one decision stands and the other gets the 409. A post in another state answers 400 `not_awaiting_approval`. Send `Idempotency-Key` to make a retry safe: the same key answers the first answer (even once another decision was made since), and the same key with another post or comment is a 400 `idempotency_key_reused`.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Makes a retried call safe: the same key with the same body (and path) returns the first answer and does nothing again; with another body it is a 400. Keys are per workspace (any key of the workspace that may make the request gets the first answer; every permission check runs before an answer is replayed) and kept 48 hours, after which the key is free again. While the first request runs, a retry waits up to 5 seconds, then gets 409 `idempotency_in_progress`; a request the server never finished (it stopped mid-way, and nothing was written) releases its key after 2 minutes, and a retry then redoes it. */
                    "idempotency-key"?: string;
                    /** @description The workspace to act on, when the key spans several. */
                    showorg?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["RejectPostInput"];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Post"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/series": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List recurring posts
         * @description The live series of the workspace, newest first (at most 500). A key limited to certain channels sees the series whose every channel it may use.
         */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SeriesList"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Create a recurring post
         * @description A composition (the items of POST /posts, checked the same way) published at every occurrence of `repeat`: daily, weekly on chosen days, monthly, or an RFC 5545 RRULE, in a time zone, until `count` occurrences or `until`. Occurrences after now are written; a rule with none answers 400 `series_empty`. Send `Idempotency-Key` to make a retry safe: the same key and body answer the same series (as it is then) and create none. Occurrences are anchored to the rule, in its time zone: a late or failed occurrence never moves the others, and a daylight-saving change keeps the local time. Each occurrence is a post of its own (its own id, release id and statistics) written up to 60 days ahead, so GET /posts shows them; each post names its series in `series`. An occurrence reached more than 120 minutes after its time (the server was down) is not published late: it is skipped (ERROR with `errorKind: "skipped"`, or counted in the series' `skipped` when it was never written). Edit or delete one occurrence with PATCH or DELETE /posts/{id}: only it changes.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Makes a retried call safe: the same key with the same body (and path) returns the first answer and does nothing again; with another body it is a 400. Keys are per workspace (any key of the workspace that may make the request gets the first answer; every permission check runs before an answer is replayed) and kept 48 hours, after which the key is free again. While the first request runs, a retry waits up to 5 seconds, then gets 409 `idempotency_in_progress`; a request the server never finished (it stopped mid-way, and nothing was written) releases its key after 2 minutes, and a retry then redoes it. */
                    "idempotency-key"?: string;
                    /** @description The workspace to act on, when the key spans several. */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CreateSeriesInput"];
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Series"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/series/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a recurring post
         * @description The series' rule, what it publishes, its next occurrence and how far its occurrences are written as posts. Occurrences are anchored to the rule, in its time zone: a late or failed occurrence never moves the others, and a daylight-saving change keeps the local time. Each occurrence is a post of its own (its own id, release id and statistics) written up to 60 days ahead, so GET /posts shows them; each post names its series in `series`. An occurrence reached more than 120 minutes after its time (the server was down) is not published late: it is skipped (ERROR with `errorKind: "skipped"`, or counted in the series' `skipped` when it was never written). Edit or delete one occurrence with PATCH or DELETE /posts/{id}: only it changes.
         */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Series"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /**
         * Stop a recurring post
         * @description The series stops: its future occurrences not yet published are removed from the calendar (`removed`); published ones stay, on the platform and in the calendar. An occurrence being published at that moment goes out.
         */
        delete: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["DeletedSeries"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /**
         * Edit a recurring post from now on
         * @description Each field given replaces the series'. Its future occurrences not yet published are written again from the new rule and composition; occurrences already published or due before now stay, and so do those edited or deleted on their own (PATCH or DELETE /posts/{id}). A change that races another answers 409 `series_changed`.
         */
        patch: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["UpdateSeriesInput"];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Series"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/imports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import posts in bulk (CSV or JSON), or check them with a dry run
         * @description The rows as JSON (`rows`, or CSV text in `csv`), or a CSV file sent as multipart/form-data (the part `file`, with the fields `dryRun` and `partial`). One row per post: `channels`, `date` (or `queue`), `content` (text, Markdown or HTML by `format`), `media` (library paths), `comments`, `settings`, `tags`. Each row is checked exactly as POST /posts checks a request (channels visible to the key, dates, settings, media), and a row to schedule also by the readiness check of GET /posts/:id/missing (each platform's limits); `errors` lists every problem by row number and field. `dryRun: true` creates nothing. Otherwise all or nothing: one bad row and nothing is created (`status: "invalid"`); `partial: true` creates the good rows and reports the others. Scopes as POST /posts (`posts:publish` for rows to schedule or queue). Imports of up to 100 rows answer when done; larger ones answer at once with `status: "running"` and run in the background: read GET /imports/{id} for progress. Send `Idempotency-Key` to make a retry answer the same import. An import running in the background checks its credential again before it writes (after a restart too): a key revoked, an app's access or a session ended, a member removed, or a channel of its rows no longer allowed stops it (`status: "stopped"`), and it creates nothing more.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Makes a retried call safe: the same key with the same body (and path) returns the first answer and does nothing again; with another body it is a 400. Keys are per workspace (any key of the workspace that may make the request gets the first answer; every permission check runs before an answer is replayed) and kept 48 hours, after which the key is free again. While the first request runs, a retry waits up to 5 seconds, then gets 409 `idempotency_in_progress`; a request the server never finished (it stopped mid-way, and nothing was written) releases its key after 2 minutes, and a retry then redoes it. */
                    "idempotency-key"?: string;
                    /** @description The workspace to act on, when the key spans several. */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CreateImportInput"];
                    "multipart/form-data": {
                        /**
                         * Format: binary
                         * @description The CSV file (at most 20 MB): a header line naming the ImportRow fields (`channels,date,content,…`), then one row per post. Read as it arrives, never held whole.
                         */
                        file: string;
                        /**
                         * @description `true` checks every row exactly as a real import would, and creates nothing (default `false`; `1`, `0` and `on` are taken too).
                         * @enum {string}
                         */
                        dryRun?: "true" | "false";
                        /**
                         * @description `true` creates the rows that pass and reports the others (default `false`: all or nothing).
                         * @enum {string}
                         */
                        partial?: "true" | "false";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Import"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/imports/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An import's progress and outcome
         * @description Rows checked and created so far, every problem found by row and field, and the posts created by row.
         */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Import"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/notifications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List notifications, newest first
         * @description Failed publishing (naming the post and the platform's reason), channels that need reconnecting, and plan limits close to their end. Pages of 20, from page 0 to page 499: the newest 10,000 notifications. A key limited to some channels sees those channels' notifications and the workspace-wide ones. `unreadCount` and each notification's `unread` follow the member's read marker, which POST /notifications/read moves.
         */
        get: {
            parameters: {
                query?: {
                    /** @description Page number, from zero (at most 499). */
                    page?: number;
                };
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["NotificationPage"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/notifications/read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mark notifications read
         * @description Moves the member's read marker in this workspace to `until` (a notification's id) or, without it, to the newest notification they see. The marker belongs to the member (the owner of the key, token or session), so every browser and client of theirs counts the same unread notifications (`unreadCount` in GET /notifications); it only moves forwards, so marking an older one read changes nothing. An id the request cannot see is a 404.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The newest notification read (its id): it and every one before it are read. Left out: up to the newest. */
                        until?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["NotificationsRead"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/analytics/summary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The workspace's numbers over a window
         * @description For the posts published in the window (at most one year): totals per metric, per channel, and the top posts by `metric`. A key limited to some channels sums those channels only. Numbers are read from the platforms on a schedule (hourly in a post’s first day, every 6 hours in its first week, daily until 30 days; accounts daily) and kept as snapshots. A metric the platform does not report is absent, never 0.
         */
        get: {
            parameters: {
                query: {
                    /** @description Start of the window (inclusive), ISO 8601 UTC. */
                    startDate: string;
                    /** @description End of the window (inclusive), ISO 8601 UTC; at most one year after the start. */
                    endDate: string;
                    /** @description The metric top posts are ranked by (likes by default). */
                    metric?: "impressions" | "views" | "reach" | "likes" | "reposts" | "shares" | "replies" | "quotes" | "bookmarks" | "saves" | "clicks" | "profile_visits" | "watch_time" | "score" | "zaps" | "followers" | "following" | "posts";
                    /** @description Top posts returned, 1 to 100 (10 by default). */
                    limit?: number;
                };
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AnalyticsSummary"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/analytics/posts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A post's numbers
         * @description The platform's numbers for a published post and each of its comments, latest and over time. Numbers are read from the platforms on a schedule (hourly in a post’s first day, every 6 hours in its first week, daily until 30 days; accounts daily) and kept as snapshots. A metric the platform does not report is absent, never 0. `refresh=true` reads the platform first, at most once per channel every 5 minutes; otherwise (and beyond that limit) the stored numbers are answered with `metricsUpdatedAt`.
         */
        get: {
            parameters: {
                query?: {
                    /** @description true: read the numbers from the platform first (at most once per channel every 5 minutes; beyond that the stored numbers are answered, with `refreshed: false`). */
                    refresh?: "true" | "false";
                };
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["PostAnalytics"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/analytics/channels/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A channel's numbers over a window
         * @description The account's numbers (followers…) per UTC day in the window, and per day the sums of the numbers of the posts published that day. The window is validated as for GET /posts (at most one year). Numbers are read from the platforms on a schedule (hourly in a post’s first day, every 6 hours in its first week, daily until 30 days; accounts daily) and kept as snapshots. A metric the platform does not report is absent, never 0. `refresh=true` reads the platform first, at most once per channel every 5 minutes; otherwise (and beyond that limit) the stored numbers are answered with `metricsUpdatedAt`.
         */
        get: {
            parameters: {
                query: {
                    /** @description Start of the window (inclusive), ISO 8601 UTC. */
                    startDate: string;
                    /** @description End of the window (inclusive), ISO 8601 UTC; at most one year after the start. */
                    endDate: string;
                    /** @description true: read the numbers from the platform first (at most once per channel every 5 minutes; beyond that the stored numbers are answered, with `refreshed: false`). */
                    refresh?: "true" | "false";
                };
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ChannelAnalytics"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/analytics/post/{postId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A post's series over the last days
         * @description The shape clients of this API family already read: one series per metric, `{label, percentageChange, data: [{total, date}]}`, over the last `date` UTC days; `percentageChange` compares them with the `date` days before. Each day's last reading of the post; `{missing: true}` while the post has no platform id. `refresh=true` reads the platform first, at most once per channel every 5 minutes; otherwise (and beyond that limit) the stored numbers are answered with `metricsUpdatedAt`.
         */
        get: {
            parameters: {
                query?: {
                    /** @description Days back from now (e.g. 7, 30, 90). */
                    date?: number;
                    /** @description true: read the numbers from the platform first (at most once per channel every 5 minutes; beyond that the stored numbers are answered, with `refreshed: false`). */
                    refresh?: "true" | "false";
                };
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    postId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AnalyticsSeries"] | {
                            /** @enum {boolean} */
                            missing: true;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/analytics/{channelId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A channel's series over the last days
         * @description The shape clients of this API family already read: one series per metric, `{label, percentageChange, data: [{total, date}]}`, over the last `date` UTC days; `percentageChange` compares them with the `date` days before. Account numbers (followers…) are each day's last reading, compared at the ends of the two periods; post numbers are the daily sums of the posts published that day. `refresh=true` reads the platform first, at most once per channel every 5 minutes; otherwise (and beyond that limit) the stored numbers are answered with `metricsUpdatedAt`.
         */
        get: {
            parameters: {
                query?: {
                    /** @description Days back from now (e.g. 7, 30, 90). */
                    date?: number;
                    /** @description true: read the numbers from the platform first (at most once per channel every 5 minutes; beyond that the stored numbers are answered, with `refreshed: false`). */
                    refresh?: "true" | "false";
                };
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    channelId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AnalyticsSeries"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/upload": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload a file to the media library
         * @description multipart/form-data with exactly one part, `file`. Images (JPEG, PNG, GIF, WEBP, AVIF, BMP, TIFF) up to 10 MB, videos (MP4) up to 1 GB; the type is read from the content. Identical content already in the workspace answers with the existing `{id, path}` and stores nothing new. A missing or extra part, an empty file, a refused type, or a file that is not whole (cut off in transfer: an image without its end marker or declared size, a video without its index `moov`, code `truncated_file`) is a 400; a file over its limit is a 413, and nothing is kept.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            /** @description multipart/form-data with exactly one part, named `file`. */
            requestBody: {
                content: {
                    "multipart/form-data": {
                        /**
                         * Format: binary
                         * @description The file: JPEG, PNG, GIF, WEBP, AVIF, BMP or TIFF up to 10 MB, or MP4 up to 1 GB. Its type is read from its content, never from its name.
                         */
                        file: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["UploadResult"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/upload-from-url": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add a file to the media library from a URL
         * @description The server fetches the URL (http or https only) with the same checks and deduplication as /upload. Addresses of loopback, private, link-local (cloud metadata), shared, multicast and reserved networks are refused with a 400 naming the reason, also after a redirect (at most 3, each checked again). A source that cannot be found, refuses, fails or is too slow answers 400 or 502 with a sentence saying which.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * Format: uri
                         * @description A public http or https URL. Addresses of local or internal networks are refused; redirects are followed (at most 3), each checked again.
                         */
                        url: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["UploadResult"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/media": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the media library
         * @description The workspace's files, newest first, a page at a time (`page` from zero). A listing reaches the newest 10,000 files: `(page + 1) × pageSize` is at most 10,000.
         */
        get: {
            parameters: {
                query?: {
                    /** @description Page number, from zero; a listing reaches the newest 10,000 files, so (page + 1) × pageSize is at most 10,000. */
                    page?: number;
                    /** @description Files per page (1 to 100). */
                    pageSize?: number;
                    /** @description Only files whose name contains this text, in any case (`%` and `_` are plain characters); `total` and `pages` count those. */
                    search?: string;
                };
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["MediaPage"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/media/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a file from the media library
         * @description Removes the file and its stored bytes. A file still attached to a post that is not yet published is kept: the answer is a 409 whose `posts` lists those posts. Another workspace's file is a 404, like a missing one.
         */
        delete: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    /** @description The media ID. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["DeletedMedia"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/upload-link": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a browser upload link
         * @description A page where a person without an account can drop files into this workspace's library, for two hours. Its secret URL can only add files to this workspace: it cannot read the rest of the library or post. It stops working early if the credential that made it is revoked (this API key, or the app's access for an OAuth token) or its user can no longer upload here; one made in the web app (the browser session) works its two hours while its member can upload here, even after they sign out.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["UploadLink"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/upload-link/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read what arrived through an upload link
         * @description `empty` until the first file arrives: that is not an error, ask the person and query again. Files are listed oldest first. A link of another workspace answers like an empty one.
         */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    /** @description The link ID, from the create response. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["UploadLinkContents"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the workspace's webhook endpoints */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["WebhookEndpointList"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Create a webhook endpoint
         * @description Herald POSTs each subscribed event to the URL, signed by the Standard Webhooks specification (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The signing secret is in this answer only: keep it. At most 20 endpoints per workspace.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * Format: uri
                         * @description Where deliveries are POSTed. https, except a loopback address when the server allows loopback (local development); internal addresses are refused.
                         */
                        url: string;
                        /**
                         * @description A note for people, at most 500 characters.
                         * @default
                         */
                        description?: string;
                        /** @description The events sent to the endpoint: post.created, post.scheduled, post.updated, post.deleted, post.published, post.failed, post.comment.published, post.awaiting_approval, post.approved, post.rejected, channel.connected, channel.disconnected, channel.needs_reconnect, channel.deleted, media.uploaded, notification.created. */
                        eventTypes: ("post.created" | "post.scheduled" | "post.updated" | "post.deleted" | "post.published" | "post.failed" | "post.comment.published" | "post.awaiting_approval" | "post.approved" | "post.rejected" | "channel.connected" | "channel.disconnected" | "channel.needs_reconnect" | "channel.deleted" | "media.uploaded" | "notification.created")[];
                        /** @default true */
                        enabled?: boolean;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["WebhookEndpointWithSecret"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a webhook endpoint */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    /** @description The endpoint ID. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["WebhookEndpoint"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description Its pending deliveries and its log go with it.
         */
        delete: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    /** @description The endpoint ID. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            deleted: true;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /**
         * Change a webhook endpoint
         * @description Only the fields given change. `enabled: true` also enables an endpoint Herald disabled after failing deliveries.
         */
        patch: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    /** @description The endpoint ID. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * Format: uri
                         * @description Where deliveries are POSTed. https, except a loopback address when the server allows loopback (local development); internal addresses are refused.
                         */
                        url?: string;
                        /** @description A note for people, at most 500 characters. */
                        description?: string;
                        /** @description The events sent to the endpoint: post.created, post.scheduled, post.updated, post.deleted, post.published, post.failed, post.comment.published, post.awaiting_approval, post.approved, post.rejected, channel.connected, channel.disconnected, channel.needs_reconnect, channel.deleted, media.uploaded, notification.created. */
                        eventTypes?: ("post.created" | "post.scheduled" | "post.updated" | "post.deleted" | "post.published" | "post.failed" | "post.comment.published" | "post.awaiting_approval" | "post.approved" | "post.rejected" | "channel.connected" | "channel.disconnected" | "channel.needs_reconnect" | "channel.deleted" | "media.uploaded" | "notification.created")[];
                        /** @description true enables an endpoint again (also one Herald disabled); false stops deliveries. */
                        enabled?: boolean;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["WebhookEndpoint"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/webhooks/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate a webhook endpoint's signing secret
         * @description A new secret, shown once. For 24 hours (until `previousSecretValidUntil`) every delivery carries two signatures, one by each secret, so a receiver verifying with either accepts it: switch the receiver within that time.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    /** @description The endpoint ID. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["WebhookEndpointWithSecret"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event to a webhook endpoint
         * @description Queues a `webhook.test` event for this endpoint alone, delivered and retried like any other.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    /** @description The endpoint ID. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The test event; its delivery appears in the log. */
                            eventId: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A webhook endpoint's delivery log, newest first
         * @description Each delivery with its state, next retry and every attempt (status, duration, the start of the answer).
         */
        get: {
            parameters: {
                query?: {
                    /** @description How many deliveries, newest first (at most 100). */
                    limit?: number;
                };
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    /** @description The endpoint ID. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["WebhookDeliveryList"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/deliveries/{deliveryId}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery again
         * @description A delivery that succeeded or failed is sent again now, with the same `webhook-id` and body. 409 `delivery_in_progress` while it is pending or being sent; 404 once it was purged (30 days after its event settled), also when the purge ran at the same moment.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    /** @description The endpoint ID. */
                    id: string;
                    /** @description The delivery ID. */
                    deliveryId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["WebhookDelivery"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send every failed delivery since a time again
         * @description For an endpoint that was down: each failed delivery of an event since `since` is sent again now, with its `webhook-id` and body.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces). */
                    showorg?: string;
                };
                path: {
                    /** @description The endpoint ID. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * Format: date-time
                         * @description Every failed delivery of an event since this instant (ISO 8601) is sent again.
                         */
                        since: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["WebhookReplay"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/signup/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a one-time sign-in code by e-mail
         * @description Works without a key. The answer is the same for every well-formed address (new, existing, invited, or refused by the sign-up policy); a code is sent only where the policy lets the address sign in or sign up. A new code replaces the previous one. Rate limited per address and per client address.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["SignupStartRequestInput"];
                };
            };
            responses: {
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SignupStartResponse"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/signup/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in with the code from the mail
         * @description Checks the code and signs the person in: the account is created on the first sign-in when the sign-up policy allows it, and a session cookie (HttpOnly, SameSite=Lax) is set for the pages (developer settings, members). A code expires after 15 minutes and dies after 5 wrong tries; a wrong, expired or used code is a 400 `invalid_code`. The REST API never takes the cookie: create an API key in the developer settings.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["SignupVerifyRequestInput"];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SignupVerifyResponse"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiError"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ImageRefInput: {
            /** @description Optional and ignored: `path` is what counts. Clients that send an id of their own (even a random one) are accepted; the post records the library file's id. */
            id?: string;
            /**
             * Format: uri
             * @description The `path` of a file in this workspace's media library, as returned by POST /upload.
             */
            path: string;
        };
        PostValueInput: {
            /** @description HTML (a paragraph lives in <p> tags). Stored sanitised to a safe subset; each platform receives its own text form. Content with no HTML tag at all is plain text: a blank line starts a new paragraph and a single newline is a line break (`"line one\nline two"` becomes `<p>line one<br>line two</p>`), and characters such as `<` and `&` are kept as written. */
            content: string;
            /**
             * @description Media to attach, by their library `path`.
             * @default []
             */
            image: components["schemas"]["ImageRefInput"][];
            /** @description Comments only: minutes after the previous element that this one goes out (default 0). */
            delay?: number;
        };
        PostItemInput: {
            integration: {
                /** @description The channel ID. */
                id: string;
            };
            /** @description The first element is the post; the rest are published as comments under it, in order. */
            value: components["schemas"]["PostValueInput"][];
            /** @description Platform-specific settings; GET /integration-settings/:id lists them. */
            settings?: {
                /** @description The platform ID; must equal the channel's `identifier`. */
                __type: string;
            } & {
                [key: string]: unknown;
            };
        };
        /**
         * @example {
         *       "type": "schedule",
         *       "date": "2026-12-01T09:30:00Z",
         *       "posts": [
         *         {
         *           "integration": {
         *             "id": "CHANNEL_ID"
         *           },
         *           "value": [
         *             {
         *               "content": "<p>Hello from Herald</p>"
         *             }
         *           ]
         *         }
         *       ]
         *     }
         * @example {
         *       "type": "draft",
         *       "date": "2026-12-01T09:30:00+01:00",
         *       "tags": [
         *         "launch"
         *       ],
         *       "posts": [
         *         {
         *           "integration": {
         *             "id": "CHANNEL_ID"
         *           },
         *           "value": [
         *             {
         *               "content": "<p>A draft: date is still required</p>"
         *             }
         *           ]
         *         }
         *       ]
         *     }
         * @example {
         *       "type": "queue",
         *       "queueSlot": "channel",
         *       "posts": [
         *         {
         *           "integration": {
         *             "id": "CHANNEL_ID"
         *           },
         *           "value": [
         *             {
         *               "content": "<p>At the channel's next free slot</p>"
         *             }
         *           ]
         *         }
         *       ]
         *     }
         * @example {
         *       "type": "now",
         *       "date": "2026-12-01T09:30:00Z",
         *       "posts": [
         *         {
         *           "integration": {
         *             "id": "CHANNEL_ID"
         *           },
         *           "value": [
         *             {
         *               "content": "<p>Out at once; date is required but the server clock is used</p>"
         *             }
         *           ]
         *         }
         *       ]
         *     }
         */
        CreatePostsInput: {
            /**
             * @description `schedule`, `now` and `queue` need the `posts:publish` scope. `now` publishes at once and cannot be undone. `queue` schedules each post at its channel's next free slot (see `queueSlot` and GET /integrations/{id}/schedule); `date` is then ignored and may be left out.
             * @enum {string}
             */
            type: "draft" | "schedule" | "now" | "queue";
            /**
             * @description With `type: "queue"` and several channels: `channel` (the default) gives each channel its own next free slot in its own schedule; `common` gives every post one slot, the first slot of the first channel's schedule that is free on all of them. A slot is free on a channel when none of its posts (scheduled, being published, published or failed; drafts do not count) is at that instant.
             * @enum {string}
             */
            queueSlot?: "channel" | "common";
            /**
             * Format: date-time
             * @description Publish time, ISO 8601 UTC (e.g. `2026-12-01T09:30:00Z`; an offset is converted to UTC; a time without `Z` or an offset is refused). Required for every type but `queue`: for `draft` it places the draft in the calendar; for `now` it is still required but the server's clock is used instead. A `schedule` date may be at most 5 minutes in the past (it then goes out at once) and at most 10 years ahead.
             */
            date?: string;
            /**
             * @description Replace links in the published text with short links served by this service.
             * @default false
             */
            shortLink: boolean;
            /**
             * @description Internal labels; not sent to the platform.
             * @default []
             */
            tags: string[];
            /** @description An existing group ID: update that composition in place (posts for channels no longer listed are removed) instead of creating a new one. */
            group?: string;
            /** @description One item per channel; a channel may appear once. */
            posts: components["schemas"]["PostItemInput"][];
        };
        /**
         * @example {
         *       "content": "<p>Corrected text</p>"
         *     }
         * @example {
         *       "date": "2026-12-02T09:30:00Z",
         *       "tags": [
         *         "launch",
         *         "moved"
         *       ]
         *     }
         * @example {
         *       "type": "draft"
         *     }
         * @example {
         *       "comments": [
         *         {
         *           "content": "<p>More in the thread</p>",
         *           "delay": 5
         *         }
         *       ],
         *       "settings": {
         *         "title": "Launch day"
         *       }
         *     }
         */
        UpdatePostInput: {
            /**
             * @description What the post becomes: `draft`, `schedule` (published at its date) or `now` (published at once; cannot be undone). Left out, a draft stays a draft and a scheduled post stays scheduled; a post in ERROR becomes a draft (send `schedule` to try again). `schedule` and `now` need `posts:publish`, and so does any edit of a scheduled post (taking it out of the queue or keeping it there).
             * @enum {string}
             */
            type?: "draft" | "schedule" | "now";
            /**
             * Format: date-time
             * @description The new publish time, ISO 8601 UTC (an offset is converted; a time without a zone is refused). Left out, the post keeps its date; a `schedule` date may be at most 5 minutes in the past and at most 10 years ahead, so a scheduled post whose time has passed needs a new date.
             */
            date?: string;
            /** @description The post's text (`value[0].content`), HTML or plain text as in POST /posts; its media and comments stay. */
            content?: string;
            /** @description The post's media (`value[0].image`), by their library `path`, replacing what it had; `[]` removes them. */
            image?: components["schemas"]["ImageRefInput"][];
            /** @description The comments under the post (`value[1…]`), in order, replacing all of them; `[]` removes them. */
            comments?: components["schemas"]["PostValueInput"][];
            /** @description The whole thread at once, as in POST /posts: the post, then its comments. Not together with `content`, `image` or `comments`. */
            value?: components["schemas"]["PostValueInput"][];
            /** @description Platform-specific settings, merged into the post's: each key given replaces its value, a key set to null is removed, the others stay. */
            settings?: {
                /** @description The platform ID; when given, it must equal the channel's `identifier`. */
                __type?: string;
            } & {
                [key: string]: unknown;
            };
            /** @description Internal labels, replacing the current ones; `[]` removes them. */
            tags?: string[];
            /** @description Replace links in the published text with short links served by this service. */
            shortLink?: boolean;
        };
        /**
         * @example {
         *       "type": "schedule",
         *       "date": "2026-12-01T09:30:00Z",
         *       "value": [
         *         {
         *           "content": "<p>The whole post, again</p>"
         *         }
         *       ]
         *     }
         */
        ReplacePostInput: {
            /**
             * @description `schedule` and `now` need the `posts:publish` scope, and so does replacing a scheduled post.
             * @enum {string}
             */
            type: "draft" | "schedule" | "now";
            /**
             * Format: date-time
             * @description Publish time, ISO 8601 UTC, with the same rules as in POST /posts.
             */
            date: string;
            /** @description The first element is the post; the rest are published as comments under it, in order. */
            value: components["schemas"]["PostValueInput"][];
            /** @description Platform-specific settings, replacing the current ones (left out: none). */
            settings?: {
                /** @description The platform ID; when given, it must equal the channel's `identifier`. */
                __type?: string;
            } & {
                [key: string]: unknown;
            };
            /**
             * @description Internal labels, replacing the current ones.
             * @default []
             */
            tags: string[];
            /**
             * @description Replace links in the published text with short links served by this service.
             * @default false
             */
            shortLink: boolean;
        };
        /**
         * @example {
         *       "integrations": [
         *         "X_CHANNEL_ID",
         *         "MASTODON_CHANNEL_ID"
         *       ],
         *       "value": [
         *         {
         *           "content": "<p>Read it at <a href=\"https://example.com/a/very/long/address\">https://example.com/a/very/long/address</a></p>"
         *         }
         *       ]
         *     }
         */
        MeasureTextInput: {
            /** @description The channels to measure for (IDs from GET /integrations), at most 20. */
            integrations: string[];
            /** @description The thread as POST /posts takes it: the post, then its comments (media play no part in the count). At most 20,000 characters of content in all. */
            value: {
                /** @description HTML (a paragraph lives in <p> tags). Stored sanitised to a safe subset; each platform receives its own text form. Content with no HTML tag at all is plain text: a blank line starts a new paragraph and a single newline is a line break (`"line one\nline two"` becomes `<p>line one<br>line two</p>`), and characters such as `<` and `&` are kept as written. */
                content: string;
            }[];
            /** @description Post settings by channel ID, as each POST /posts item would carry them (the channel's preferred settings fill in the rest): some change the limit, such as X's `longPosts`. */
            settings?: {
                [key: string]: {
                    [key: string]: unknown;
                };
            };
            /**
             * @description Also answer each part as the platform receives it (`text`): plain text, Markdown or HTML, per platform.
             * @default false
             */
            withText: boolean;
        };
        /** @description Where to send a one-time code. */
        SignupStartRequestInput: {
            /**
             * Format: email
             * @description An e-mail address.
             * @example ana@example.com
             */
            email: string;
        };
        SignupVerifyRequestInput: {
            /**
             * Format: email
             * @description An e-mail address.
             * @example ana@example.com
             */
            email: string;
            /** @description The one-time code from the mail. */
            code: string;
        };
        /** @description `provider`, then the platform's fields: its configuration (e.g. Telegram `botToken`, `chatId`), or what its sign-in needs (Mastodon `instance`). Fields a platform does not know are refused. */
        ConnectChannelInput: {
            /** @description The platform (`mastodon`, `telegram`, `bluesky`, `webhook`, …). */
            provider: string;
            /** @description Display name; the account's own name by default. */
            name?: string;
            /** @description File the channel under this client group (`customer.id`). */
            group?: string;
        } & {
            [key: string]: unknown;
        };
        PostingSlotInput: {
            /**
             * @description The day of the week, in English, lower case.
             * @enum {string}
             */
            day: "sunday" | "monday" | "tuesday" | "wednesday" | "thursday" | "friday" | "saturday";
            /** @description The local time in the schedule's time zone, HH:MM (24-hour). */
            time: string;
        };
        /**
         * @example {
         *       "timeZone": "Europe/Paris",
         *       "slots": [
         *         {
         *           "day": "monday",
         *           "time": "09:00"
         *         },
         *         {
         *           "day": "monday",
         *           "time": "17:30"
         *         },
         *         {
         *           "day": "wednesday",
         *           "time": "12:00"
         *         }
         *       ]
         *     }
         */
        SetPostingScheduleInput: {
            /** @description An IANA time zone name (e.g. `Europe/Paris`, `Australia/Sydney`, `UTC`); slots are local times there. */
            timeZone: string;
            /** @description The weekly slots. Across a daylight-saving change a slot keeps its local time. A slot that does not exist on a day (the clocks spring forward over it) is moved forward by the gap (02:30 becomes 03:30); one that occurs twice (the clocks fall back) is used once, at its first occurrence. Slots that fall on the same instant are one slot. `[]`: nothing is queued on the channel (POST /posts with `type: "queue"` answers 409 `no_free_slot`). */
            slots: components["schemas"]["PostingSlotInput"][];
        };
        /**
         * @example {
         *       "roles": [
         *         "contributor"
         *       ]
         *     }
         */
        SetApprovalSettingsInput: {
            /** @description The roles whose scheduled posts wait for approval: `contributor`, `editor`, both, or none (empty: nobody is asked, the default). Owners and admins are never asked. */
            roles: ("editor" | "contributor")[];
        };
        /**
         * @example {
         *       "comment": "Good to go."
         *     }
         */
        ApprovePostInput: {
            /** @description A note kept with the decision (optional). */
            comment?: string;
        };
        /**
         * @example {
         *       "comment": "Please link the announcement, not the home page."
         *     }
         */
        RejectPostInput: {
            /** @description Why it is rejected: shown to the author (required). */
            comment: string;
        };
        RepeatInput: {
            /**
             * @description `daily`, `weekly` (on `days`), `monthly` (on `monthDay`), or `rrule`: an RFC 5545 recurrence rule given in `rrule`.
             * @enum {string}
             */
            frequency: "daily" | "weekly" | "monthly" | "rrule";
            /** @description Every `interval` days, weeks or months (default 1). */
            interval?: number;
            /** @description `weekly` only: the days of the week (default: the day of `start`). */
            days?: ("sunday" | "monday" | "tuesday" | "wednesday" | "thursday" | "friday" | "saturday")[];
            /** @description `monthly` only: the day of the month, 1 to 31, or -1 for the last (default: the day of `start`). A month without that day has no occurrence. */
            monthDay?: number;
            /** @description `rrule` only: the rule, e.g. `FREQ=WEEKLY;BYDAY=TU,TH` or `FREQ=MONTHLY;BYDAY=MO;BYSETPOS=1` (the first Monday). Without DTSTART, TZID, UNTIL or COUNT (they are `start`, `timeZone`, `until` and `count`); at most hourly. */
            rrule?: string;
            /** @description An IANA time zone (e.g. `Europe/Berlin`, `Australia/Sydney`): the rule runs on its local time. */
            timeZone: string;
            /** @description The first occurrence's local date and time in `timeZone`, without a zone (`2026-12-01T09:00`). Every occurrence keeps this local time across daylight-saving changes; a time the clocks skip that day is moved forward by the gap, a time that occurs twice is the first. */
            start: string;
            /** @description Ends after this many occurrences (counted from `start`). */
            count?: number;
            /**
             * Format: date-time
             * @description No occurrence after this instant (ISO 8601 UTC). Without `count` or `until` the series goes on until deleted.
             */
            until?: string;
        };
        /**
         * @example {
         *       "repeat": {
         *         "frequency": "weekly",
         *         "days": [
         *           "monday",
         *           "thursday"
         *         ],
         *         "start": "2026-12-07T09:00",
         *         "timeZone": "Europe/Berlin",
         *         "count": 20
         *       },
         *       "posts": [
         *         {
         *           "integration": {
         *             "id": "CHANNEL_ID"
         *           },
         *           "value": [
         *             {
         *               "content": "<p>Tips of the week: herald.example/tips</p>"
         *             }
         *           ]
         *         }
         *       ]
         *     }
         * @example {
         *       "repeat": {
         *         "frequency": "rrule",
         *         "rrule": "FREQ=MONTHLY;BYDAY=MO;BYSETPOS=1",
         *         "start": "2026-12-07T08:30",
         *         "timeZone": "Australia/Sydney"
         *       },
         *       "posts": [
         *         {
         *           "integration": {
         *             "id": "CHANNEL_ID"
         *           },
         *           "value": [
         *             {
         *               "content": "<p>Our monthly newsletter is out</p>"
         *             }
         *           ]
         *         }
         *       ]
         *     }
         */
        CreateSeriesInput: {
            repeat: components["schemas"]["RepeatInput"];
            /** @description One item per channel, as in POST /posts: what every occurrence publishes. */
            posts: components["schemas"]["PostItemInput"][];
            /**
             * @description Internal labels of every occurrence.
             * @default []
             */
            tags: string[];
            /**
             * @description Replace links in the published text with short links served by this service.
             * @default false
             */
            shortLink: boolean;
        };
        /**
         * @example {
         *       "posts": [
         *         {
         *           "integration": {
         *             "id": "CHANNEL_ID"
         *           },
         *           "value": [
         *             {
         *               "content": "<p>New text from the next occurrence on</p>"
         *             }
         *           ]
         *         }
         *       ]
         *     }
         */
        UpdateSeriesInput: {
            /** @description A new rule, replacing the current one from now on. */
            repeat?: components["schemas"]["RepeatInput"];
            /** @description What every future occurrence publishes, replacing the current items. */
            posts?: components["schemas"]["PostItemInput"][];
            tags?: string[];
            shortLink?: boolean;
        };
        /**
         * @example {
         *       "dryRun": true,
         *       "rows": [
         *         {
         *           "channels": [
         *             "CHANNEL_ID"
         *           ],
         *           "date": "2026-12-01T09:30:00Z",
         *           "content": "Hello from a **spreadsheet**",
         *           "format": "markdown"
         *         },
         *         {
         *           "channels": "CHANNEL_ID|OTHER_CHANNEL_ID",
         *           "date": "queue",
         *           "content": "At the next free slot",
         *           "tags": "import|december"
         *         }
         *       ]
         *     }
         * @example {
         *       "csv": "channels,date,content\nCHANNEL_ID,2026-12-01T09:30:00Z,Hello\n",
         *       "partial": true
         *     }
         */
        CreateImportInput: {
            /** @description The rows as JSON objects (see ImportRow). */
            rows?: {
                [key: string]: unknown;
            }[];
            /** @description The rows as CSV text with a header line naming the ImportRow fields (`channels,date,content,…`). Give `rows` or `csv`. */
            csv?: string;
            /**
             * @description Check every row exactly as a real import would, and create nothing.
             * @default false
             */
            dryRun: boolean;
            /**
             * @description Create the rows that pass and report the others. Without it an import is all or nothing: one bad row and nothing is created.
             * @default false
             */
            partial: boolean;
        };
        /** @description An error. Business-rule errors carry `msg` (and `code`); request-validation errors carry `statusCode`, `message` and `error`. A 403 also names the missing `scope` and the owner's `role`. */
        ApiError: {
            /** @description Business-rule errors: a sentence for a person. */
            msg?: string;
            /** @description Business-rule errors: a stable machine-readable code. */
            code?: string;
            /** @description Validation errors: the HTTP status. */
            statusCode?: number;
            /** @description Validation errors: what is wrong, one entry per problem. */
            message?: string | string[];
            /** @description Validation errors: the HTTP reason phrase. */
            error?: string;
        } & {
            [key: string]: unknown;
        };
        ImageRef: {
            /** @description Optional and ignored: `path` is what counts. Clients that send an id of their own (even a random one) are accepted; the post records the library file's id. */
            id?: string;
            /**
             * Format: uri
             * @description The `path` of a file in this workspace's media library, as returned by POST /upload.
             */
            path: string;
        };
        PostValue: {
            /** @description HTML (a paragraph lives in <p> tags). Stored sanitised to a safe subset; each platform receives its own text form. Content with no HTML tag at all is plain text: a blank line starts a new paragraph and a single newline is a line break (`"line one\nline two"` becomes `<p>line one<br>line two</p>`), and characters such as `<` and `&` are kept as written. */
            content: string;
            /**
             * @description Media to attach, by their library `path`.
             * @default []
             */
            image: components["schemas"]["ImageRef"][];
            /** @description Comments only: minutes after the previous element that this one goes out (default 0). */
            delay?: number;
        };
        PostItem: {
            integration: {
                /** @description The channel ID. */
                id: string;
            };
            /** @description The first element is the post; the rest are published as comments under it, in order. */
            value: components["schemas"]["PostValue"][];
            /** @description Platform-specific settings; GET /integration-settings/:id lists them. */
            settings?: {
                /** @description The platform ID; must equal the channel's `identifier`. */
                __type: string;
            } & {
                [key: string]: unknown;
            };
        };
        /**
         * @example {
         *       "type": "schedule",
         *       "date": "2026-12-01T09:30:00Z",
         *       "posts": [
         *         {
         *           "integration": {
         *             "id": "CHANNEL_ID"
         *           },
         *           "value": [
         *             {
         *               "content": "<p>Hello from Herald</p>"
         *             }
         *           ]
         *         }
         *       ]
         *     }
         * @example {
         *       "type": "draft",
         *       "date": "2026-12-01T09:30:00+01:00",
         *       "tags": [
         *         "launch"
         *       ],
         *       "posts": [
         *         {
         *           "integration": {
         *             "id": "CHANNEL_ID"
         *           },
         *           "value": [
         *             {
         *               "content": "<p>A draft: date is still required</p>"
         *             }
         *           ]
         *         }
         *       ]
         *     }
         * @example {
         *       "type": "queue",
         *       "queueSlot": "channel",
         *       "posts": [
         *         {
         *           "integration": {
         *             "id": "CHANNEL_ID"
         *           },
         *           "value": [
         *             {
         *               "content": "<p>At the channel's next free slot</p>"
         *             }
         *           ]
         *         }
         *       ]
         *     }
         * @example {
         *       "type": "now",
         *       "date": "2026-12-01T09:30:00Z",
         *       "posts": [
         *         {
         *           "integration": {
         *             "id": "CHANNEL_ID"
         *           },
         *           "value": [
         *             {
         *               "content": "<p>Out at once; date is required but the server clock is used</p>"
         *             }
         *           ]
         *         }
         *       ]
         *     }
         */
        CreatePosts: {
            /**
             * @description `schedule`, `now` and `queue` need the `posts:publish` scope. `now` publishes at once and cannot be undone. `queue` schedules each post at its channel's next free slot (see `queueSlot` and GET /integrations/{id}/schedule); `date` is then ignored and may be left out.
             * @enum {string}
             */
            type: "draft" | "schedule" | "now" | "queue";
            /**
             * @description With `type: "queue"` and several channels: `channel` (the default) gives each channel its own next free slot in its own schedule; `common` gives every post one slot, the first slot of the first channel's schedule that is free on all of them. A slot is free on a channel when none of its posts (scheduled, being published, published or failed; drafts do not count) is at that instant.
             * @enum {string}
             */
            queueSlot?: "channel" | "common";
            /**
             * Format: date-time
             * @description Publish time, ISO 8601 UTC (e.g. `2026-12-01T09:30:00Z`; an offset is converted to UTC; a time without `Z` or an offset is refused). Required for every type but `queue`: for `draft` it places the draft in the calendar; for `now` it is still required but the server's clock is used instead. A `schedule` date may be at most 5 minutes in the past (it then goes out at once) and at most 10 years ahead.
             */
            date?: string;
            /**
             * @description Replace links in the published text with short links served by this service.
             * @default false
             */
            shortLink: boolean;
            /**
             * @description Internal labels; not sent to the platform.
             * @default []
             */
            tags: string[];
            /** @description An existing group ID: update that composition in place (posts for channels no longer listed are removed) instead of creating a new one. */
            group?: string;
            /** @description One item per channel; a channel may appear once. */
            posts: components["schemas"]["PostItem"][];
        };
        CreatedPost: {
            postId: string;
            /** @description The channel ID. */
            integration: string;
            /** @description The group ID of the composition (the same for every item): send it as `group` to edit the composition as a whole. */
            group: string;
        };
        /**
         * @example {
         *       "content": "<p>Corrected text</p>"
         *     }
         * @example {
         *       "date": "2026-12-02T09:30:00Z",
         *       "tags": [
         *         "launch",
         *         "moved"
         *       ]
         *     }
         * @example {
         *       "type": "draft"
         *     }
         * @example {
         *       "comments": [
         *         {
         *           "content": "<p>More in the thread</p>",
         *           "delay": 5
         *         }
         *       ],
         *       "settings": {
         *         "title": "Launch day"
         *       }
         *     }
         */
        UpdatePost: {
            /**
             * @description What the post becomes: `draft`, `schedule` (published at its date) or `now` (published at once; cannot be undone). Left out, a draft stays a draft and a scheduled post stays scheduled; a post in ERROR becomes a draft (send `schedule` to try again). `schedule` and `now` need `posts:publish`, and so does any edit of a scheduled post (taking it out of the queue or keeping it there).
             * @enum {string}
             */
            type?: "draft" | "schedule" | "now";
            /**
             * Format: date-time
             * @description The new publish time, ISO 8601 UTC (an offset is converted; a time without a zone is refused). Left out, the post keeps its date; a `schedule` date may be at most 5 minutes in the past and at most 10 years ahead, so a scheduled post whose time has passed needs a new date.
             */
            date?: string;
            /** @description The post's text (`value[0].content`), HTML or plain text as in POST /posts; its media and comments stay. */
            content?: string;
            /** @description The post's media (`value[0].image`), by their library `path`, replacing what it had; `[]` removes them. */
            image?: components["schemas"]["ImageRef"][];
            /** @description The comments under the post (`value[1…]`), in order, replacing all of them; `[]` removes them. */
            comments?: components["schemas"]["PostValue"][];
            /** @description The whole thread at once, as in POST /posts: the post, then its comments. Not together with `content`, `image` or `comments`. */
            value?: components["schemas"]["PostValue"][];
            /** @description Platform-specific settings, merged into the post's: each key given replaces its value, a key set to null is removed, the others stay. */
            settings?: {
                /** @description The platform ID; when given, it must equal the channel's `identifier`. */
                __type?: string;
            } & {
                [key: string]: unknown;
            };
            /** @description Internal labels, replacing the current ones; `[]` removes them. */
            tags?: string[];
            /** @description Replace links in the published text with short links served by this service. */
            shortLink?: boolean;
        };
        /**
         * @example {
         *       "type": "schedule",
         *       "date": "2026-12-01T09:30:00Z",
         *       "value": [
         *         {
         *           "content": "<p>The whole post, again</p>"
         *         }
         *       ]
         *     }
         */
        ReplacePost: {
            /**
             * @description `schedule` and `now` need the `posts:publish` scope, and so does replacing a scheduled post.
             * @enum {string}
             */
            type: "draft" | "schedule" | "now";
            /**
             * Format: date-time
             * @description Publish time, ISO 8601 UTC, with the same rules as in POST /posts.
             */
            date: string;
            /** @description The first element is the post; the rest are published as comments under it, in order. */
            value: components["schemas"]["PostValue"][];
            /** @description Platform-specific settings, replacing the current ones (left out: none). */
            settings?: {
                /** @description The platform ID; when given, it must equal the channel's `identifier`. */
                __type?: string;
            } & {
                [key: string]: unknown;
            };
            /**
             * @description Internal labels, replacing the current ones.
             * @default []
             */
            tags: string[];
            /**
             * @description Replace links in the published text with short links served by this service.
             * @default false
             */
            shortLink: boolean;
        };
        ApprovalStep: {
            /**
             * @description `requested` (scheduled by a role that needs approval, or sent back by its edit), `approved` or `rejected`.
             * @enum {string}
             */
            decision: "requested" | "approved" | "rejected";
            /** @description Who took the step: the author for `requested`, the approver otherwise. */
            by: {
                id: string;
                email: string | null;
                name: string | null;
            } | null;
            /** @description When, ISO 8601 UTC. */
            at: string;
            /** @description The approver's comment: a rejection's reason, an approval's note (or null). */
            comment: string | null;
        };
        Post: {
            id: string;
            /** @description Shared by the posts of one multi-channel composition. */
            group: string;
            /**
             * @description DRAFT, QUEUE (scheduled), PUBLISHING, PUBLISHED, ERROR, or AWAITING_APPROVAL (scheduled by a role whose posts need approval in this workspace: nothing is published until an approver approves it; added in v1, clients should treat an unknown state as not yet published).
             * @enum {string}
             */
            state: "DRAFT" | "QUEUE" | "PUBLISHING" | "PUBLISHED" | "ERROR" | "AWAITING_APPROVAL";
            /** @description The recurring series this post is an occurrence of; null for a post of its own. */
            series?: {
                /** @description The series (GET /series/{id}). */
                id: string;
                /** @description The rule's instant this post stands for, ISO 8601 UTC. */
                occurrence: string;
                /** @description True once this occurrence was edited on its own: an edit of the series leaves it as it is. */
                edited: boolean;
            } | null;
            /** @description ISO 8601 UTC. */
            publishDate: string;
            integration: {
                id: string;
                providerIdentifier: string;
            };
            /** @description The post's sanitised HTML (value[0].content). */
            content: string;
            value: {
                content: string;
                image: components["schemas"]["ImageRef"][];
                delay: number;
                /**
                 * @description Where this element is: PENDING, SENDING (being published), PUBLISHED or ERROR.
                 * @enum {string}
                 */
                state: "PENDING" | "SENDING" | "PUBLISHED" | "ERROR";
                releaseId: string | null;
                releaseURL: string | null;
                publishedAt: string | null;
                error: string | null;
            }[];
            settings: {
                [key: string]: unknown;
            };
            tags: string[];
            shortLink: boolean;
            /** @description The post's ID on the platform, once published (or recorded with PUT /posts/:id/release-id). */
            releaseId: string | null;
            releaseURL: string | null;
            /** @description Why the post (or one of its comments) failed, in the platform's words where it gave any. */
            error: string | null;
            /** @description Why it is in ERROR, or why one of its comments failed: `rejected` (the platform refused it), `auth` (the channel needs reconnecting), `unconfirmed` (the outcome is unknown: check the platform; a later confirmation clears it and sends a `publish_confirmed` notification), `missing` (a required piece was missing), `gave_up` (retries ran out) or `channel_disabled`. */
            errorKind: ("rejected" | "auth" | "unconfirmed" | "missing" | "gave_up" | "channel_disabled" | "skipped") | null;
            publishedAt: string | null;
            createdAt: string;
            updatedAt: string;
            /** @description Every step of the post's approval, oldest first (empty when it never needed one). Left out when a `fields` list does not name it. */
            approvals?: components["schemas"]["ApprovalStep"][];
        };
        PostList: {
            /** @description With `fields`, each post holds only the properties named there. */
            posts: components["schemas"]["Post"][];
            /** @description Null when the window has no more posts; otherwise send it back as `cursor` (same window and filters) for the next page. */
            nextCursor: string | null;
        };
        MissingCheck: {
            postId: string;
            /** @description True when nothing is missing. */
            ready: boolean;
            missing: {
                /** @description The request field at fault, e.g. `value[0].content` or `settings.title`. */
                field: string;
                reason: string;
            }[];
        };
        Deleted: {
            /** @description How many posts were removed. */
            deleted: number;
            ids: string[];
        };
        /**
         * @example {
         *       "integrations": [
         *         "X_CHANNEL_ID",
         *         "MASTODON_CHANNEL_ID"
         *       ],
         *       "value": [
         *         {
         *           "content": "<p>Read it at <a href=\"https://example.com/a/very/long/address\">https://example.com/a/very/long/address</a></p>"
         *         }
         *       ]
         *     }
         */
        MeasureText: {
            /** @description The channels to measure for (IDs from GET /integrations), at most 20. */
            integrations: string[];
            /** @description The thread as POST /posts takes it: the post, then its comments (media play no part in the count). At most 20,000 characters of content in all. */
            value: {
                /** @description HTML (a paragraph lives in <p> tags). Stored sanitised to a safe subset; each platform receives its own text form. Content with no HTML tag at all is plain text: a blank line starts a new paragraph and a single newline is a line break (`"line one\nline two"` becomes `<p>line one<br>line two</p>`), and characters such as `<` and `&` are kept as written. */
                content: string;
            }[];
            /** @description Post settings by channel ID, as each POST /posts item would carry them (the channel's preferred settings fill in the rest): some change the limit, such as X's `longPosts`. */
            settings?: {
                [key: string]: {
                    [key: string]: unknown;
                };
            };
            /**
             * @description Also answer each part as the platform receives it (`text`): plain text, Markdown or HTML, per platform.
             * @default false
             */
            withText: boolean;
        };
        /**
         * @example {
         *       "channels": [
         *         {
         *           "integration": "X_CHANNEL_ID",
         *           "identifier": "x",
         *           "unit": "characters",
         *           "parts": [
         *             {
         *               "length": 34,
         *               "max": 280,
         *               "over": false
         *             }
         *           ]
         *         },
         *         {
         *           "integration": "MASTODON_CHANNEL_ID",
         *           "identifier": "mastodon",
         *           "unit": "graphemes",
         *           "parts": [
         *             {
         *               "length": 34,
         *               "max": 500,
         *               "over": false
         *             }
         *           ]
         *         }
         *       ]
         *     }
         */
        TextMeasure: {
            channels: {
                /** @description The channel ID. */
                integration: string;
                /** @description Its platform ID. */
                identifier: string;
                /**
                 * @description What `length` and `max` count (as GET /integration-settings/:id says).
                 * @enum {string}
                 */
                unit: "graphemes" | "characters" | "bytes";
                parts: {
                    /** @description The length as the platform counts it (X: links 23 and wide characters 2; Mastodon: links 23 and a mention by its local part). */
                    length: number;
                    /** @description The channel's limit for this part, with these settings. */
                    max: number;
                    /** @description True when `length` is over `max`: the readiness check and the publish refuse it. */
                    over: boolean;
                    /** @description With `withText`: the part as the platform receives it. */
                    text?: string;
                }[];
            }[];
        };
        /**
         * @description Numbers by normalised name. A metric the platform does not report is absent, never 0; `clicks` counts Herald's short links when the platform reports none.
         * @example {
         *       "likes": 12,
         *       "reposts": 3,
         *       "replies": 2
         *     }
         */
        Metrics: {
            [key: string]: number;
        };
        PostAnalytics: {
            postId: string;
            /** @description The channel ID. */
            integration: string;
            /** @description The platform. */
            identifier: string;
            /** @description False until the post has a platform id: it has no numbers yet. */
            published: boolean;
            /** @description When the numbers were read from the platform (UTC); null before the first reading. */
            metricsUpdatedAt: string | null;
            /** @description The post itself (part 0), latest reading. */
            metrics: components["schemas"]["Metrics"];
            /** @description Whether this answer read the platform first (`refresh=true` within the per-channel limit). */
            refreshed: boolean;
            /** @description The post and each of its published comments. */
            parts: {
                /** @description 0 for the post, 1… for its comments. */
                part: number;
                /** @description The part's id on the platform. */
                releaseId: string;
                /** @description When the numbers were read from the platform (UTC); null before the first reading. */
                metricsUpdatedAt: string | null;
                metrics: components["schemas"]["Metrics"];
                /** @description Every reading that changed the numbers, oldest first. */
                history: {
                    /** @description When it was read (UTC). */
                    at: string;
                    metrics: components["schemas"]["Metrics"];
                }[];
            }[];
        };
        ChannelAnalytics: {
            integration: string;
            identifier: string;
            /** @description The metrics this channel's platform reports; empty when it reports none. */
            supported: {
                post: ("impressions" | "views" | "reach" | "likes" | "reposts" | "shares" | "replies" | "quotes" | "bookmarks" | "saves" | "clicks" | "profile_visits" | "watch_time" | "score" | "zaps" | "followers" | "following" | "posts")[];
                account: ("impressions" | "views" | "reach" | "likes" | "reposts" | "shares" | "replies" | "quotes" | "bookmarks" | "saves" | "clicks" | "profile_visits" | "watch_time" | "score" | "zaps" | "followers" | "following" | "posts")[];
            };
            /** @description Whether Herald reads this channel (false when its platform reports nothing, or it was deleted, disabled or refused). */
            collecting: boolean;
            /** @description Why the last reading failed, if it did. */
            error: string | null;
            /** @description When the numbers were read from the platform (UTC); null before the first reading. */
            metricsUpdatedAt: string | null;
            /** @description Whether this answer read the platform first (`refresh=true` within the per-channel limit). */
            refreshed: boolean;
            /** @description The account's latest numbers (followers…). */
            account: components["schemas"]["Metrics"];
            /** @description The account's numbers, the last reading of each UTC day in the window. */
            accountHistory: {
                date: string;
                metrics: components["schemas"]["Metrics"];
            }[];
            /** @description Per UTC day of the window that had posts. */
            daily: {
                /** @description The UTC day, YYYY-MM-DD. */
                date: string;
                /** @description Posts published that day. */
                posts: number;
                /** @description The sums of those posts' latest numbers. */
                metrics: components["schemas"]["Metrics"];
            }[];
        };
        AnalyticsSummary: {
            startDate: string;
            endDate: string;
            /** @description Published posts in the window with numbers. */
            posts: number;
            /** @description Sums over those posts. */
            totals: components["schemas"]["Metrics"];
            channels: {
                integration: string;
                posts: number;
                metrics: components["schemas"]["Metrics"];
            }[];
            top: {
                postId: string;
                integration: string;
                publishedAt: string;
                value: number;
                metrics: components["schemas"]["Metrics"];
            }[];
        };
        AnalyticsSeries: {
            /** @description The metric. */
            label: string;
            /** @description This period against the one before it, in percent (0 when both are 0; 100 when only this one has any). */
            percentageChange: number;
            data: {
                total: number;
                /** @description YYYY-MM-DD */
                date: string;
            }[];
        }[];
        /** @description Where to send a one-time code. */
        SignupStartRequest: {
            /**
             * Format: email
             * @description An e-mail address.
             * @example ana@example.com
             */
            email: string;
        };
        /** @description The same answer for every well-formed address, whether or not a code is sent to it. */
        SignupStartResponse: {
            /** @constant */
            status: "accepted";
            message: string;
            /** @description How long a code works once it has been sent. */
            codeExpiresInSeconds: number;
            /**
             * Format: uri
             * @description Where the code is sent next (POST /public/v1/signup/verify), or typed into the sign-in page.
             */
            verify: string;
        };
        SignupVerifyRequest: {
            /**
             * Format: email
             * @description An e-mail address.
             * @example ana@example.com
             */
            email: string;
            /** @description The one-time code from the mail. */
            code: string;
        };
        /** @description A browser session cookie is set for the pages; the REST API itself never takes cookies. */
        SignupVerifyResponse: {
            /** @constant */
            signedIn: true;
            user: {
                id: string;
                email: string;
            };
            /** @description True when this sign-in created the account. */
            created: boolean;
            /** Format: date-time */
            sessionExpiresAt: string;
            /**
             * Format: uri
             * @description The developer settings page, where API keys are created.
             */
            next: string;
        };
        WebhookEndpoint: {
            id: string;
            url: string;
            description: string;
            eventTypes: ("post.created" | "post.scheduled" | "post.updated" | "post.deleted" | "post.published" | "post.failed" | "post.comment.published" | "post.awaiting_approval" | "post.approved" | "post.rejected" | "channel.connected" | "channel.disconnected" | "channel.needs_reconnect" | "channel.deleted" | "media.uploaded" | "notification.created")[];
            enabled: boolean;
            /** @description `failing` when Herald disabled the endpoint after about a day of failed deliveries; null otherwise. */
            disabledReason: "failing" | null;
            /** @description When deliveries started failing, if the last one failed. */
            failingSince: string | null;
            /** @description After a rotation, until when deliveries are also signed with the previous secret. */
            previousSecretValidUntil: string | null;
            createdAt: string;
            updatedAt: string;
        };
        WebhookEndpointWithSecret: {
            id: string;
            url: string;
            description: string;
            eventTypes: ("post.created" | "post.scheduled" | "post.updated" | "post.deleted" | "post.published" | "post.failed" | "post.comment.published" | "post.awaiting_approval" | "post.approved" | "post.rejected" | "channel.connected" | "channel.disconnected" | "channel.needs_reconnect" | "channel.deleted" | "media.uploaded" | "notification.created")[];
            enabled: boolean;
            /** @description `failing` when Herald disabled the endpoint after about a day of failed deliveries; null otherwise. */
            disabledReason: "failing" | null;
            /** @description When deliveries started failing, if the last one failed. */
            failingSince: string | null;
            /** @description After a rotation, until when deliveries are also signed with the previous secret. */
            previousSecretValidUntil: string | null;
            createdAt: string;
            updatedAt: string;
            /** @description The signing secret (whsec_…), shown once: verify deliveries with any Standard Webhooks library. */
            secret: string;
        };
        WebhookEndpointList: {
            endpoints: components["schemas"]["WebhookEndpoint"][];
        };
        WebhookAttempt: {
            attempt: number;
            at: string;
            /** @description The endpoint's HTTP status; null when no answer came (timeout, refused, connection error). */
            status: number | null;
            durationMs: number;
            error: string | null;
            /** @description The start of the endpoint's answer (at most 1,024 characters). */
            response: string | null;
        };
        WebhookDelivery: {
            id: string;
            eventId: string;
            /** @description The `webhook-id` header of every attempt: the same on every retry, to deduplicate on. */
            webhookId: string;
            /** @enum {string} */
            type: "post.created" | "post.scheduled" | "post.updated" | "post.deleted" | "post.published" | "post.failed" | "post.comment.published" | "post.awaiting_approval" | "post.approved" | "post.rejected" | "channel.connected" | "channel.disconnected" | "channel.needs_reconnect" | "channel.deleted" | "media.uploaded" | "notification.created" | "webhook.test";
            /** @enum {string} */
            state: "pending" | "sending" | "succeeded" | "failed";
            attempts: number;
            nextAttemptAt: string | null;
            lastStatus: number | null;
            lastError: string | null;
            createdAt: string;
            updatedAt: string;
            attemptLog: components["schemas"]["WebhookAttempt"][];
        };
        WebhookDeliveryList: {
            deliveries: components["schemas"]["WebhookDelivery"][];
        };
        WebhookReplay: {
            /** @description How many deliveries were queued again. */
            requeued: number;
        };
        /** @description A client group ("customer") that channels are filed under. */
        ClientGroup: {
            id: string;
            name: string;
        };
        Channel: {
            /** @description The channel ID. Every call that needs a channel takes it as `integration.id`. */
            id: string;
            /** @description Display name. */
            name: string;
            /** @description Platform ID (e.g. `bluesky`, `webhook`); equals `settings.__type` when posting. */
            identifier: string;
            /** @description Profile picture URL. */
            picture: string;
            /** @description Whether the channel cannot post right now. */
            disabled: boolean;
            /** @description Why it is disabled, e.g. `needs_reconnect`; null when enabled. */
            disabledReason: string | null;
            /** @description The channel's handle, without the at sign; empty when the platform has none. */
            profile: string;
            /** @description The client group the channel is filed under. */
            customer: components["schemas"]["ClientGroup"] | null;
        };
        ChannelSettings: {
            /** @description The channel ID. */
            integration: string;
            /** @description The platform ID (`settings.__type`). */
            identifier: string;
            name: string;
            /** @description JSON Schema of `settings` (besides `__type`). */
            settings: {
                [key: string]: unknown;
            };
            textLimit: {
                max: number;
                /** @enum {string} */
                unit: "graphemes" | "characters" | "bytes";
            };
            media: {
                maxItems: number;
                mimeTypes: string[];
                /** @description The largest file the platform takes, in bytes (TikTok: 4 GiB). */
                maxBytes: number;
                required: boolean;
                /** @description What the platform takes of a video, checked (GET /posts/:id/missing) against the size and length the media library read when the file was stored; absent when Herald checks none. Frame rates are not read by the library, so the platform checks them. */
                video?: {
                    /** @description The smallest and largest number of pixels on each side of the picture (TikTok: 360 to 4096). */
                    sidePixels?: [
                        number,
                        number
                    ];
                    /** @description The shortest and longest video, in seconds (TikTok's own ceiling: 600; an account may be allowed less). */
                    seconds?: [
                        number,
                        number
                    ];
                };
            };
            tools: {
                name: string;
                description: string;
                inputSchema: {
                    [key: string]: unknown;
                };
            }[];
            /** @description Whether a publish whose outcome is unknown is retried safely (the platform deduplicates). */
            idempotentWrites: boolean;
            /** @description How a channel of this platform is connected. */
            connect: string;
            /** @description The metrics Herald reads from this channel's platform (GET /analytics/…), for posts and for the account; empty where it reads none. */
            metrics: {
                post: ("impressions" | "views" | "reach" | "likes" | "reposts" | "shares" | "replies" | "quotes" | "bookmarks" | "saves" | "clicks" | "profile_visits" | "watch_time" | "score" | "zaps" | "followers" | "following" | "posts")[];
                account: ("impressions" | "views" | "reach" | "likes" | "reposts" | "shares" | "replies" | "quotes" | "bookmarks" | "saves" | "clicks" | "profile_visits" | "watch_time" | "score" | "zaps" | "followers" | "following" | "posts")[];
            };
            /** @description The channel's preferred settings (PATCH /integrations/:id), used where a post leaves a setting out; null when none. */
            preferredSettings: {
                [key: string]: unknown;
            } | null;
        };
        /** @description `provider`, then the platform's fields: its configuration (e.g. Telegram `botToken`, `chatId`), or what its sign-in needs (Mastodon `instance`). Fields a platform does not know are refused. */
        ConnectChannel: {
            /** @description The platform (`mastodon`, `telegram`, `bluesky`, `webhook`, …). */
            provider: string;
            /** @description Display name; the account's own name by default. */
            name?: string;
            /** @description File the channel under this client group (`customer.id`). */
            group?: string;
        } & {
            [key: string]: unknown;
        };
        ConnectResult: {
            /** @description Open this to sign in on the platform; it comes back to Herald, which finishes the connection. */
            url: string;
        } | {
            integration: components["schemas"]["Channel"];
            /** @description True when the account was already a channel of the workspace, which was reconnected (same id). */
            reconnected: boolean;
            /** @description Only when Herald generated the channel's secret because none was given (a `webhook` channel's Standard Webhooks signing secret, `whsec_…`): shown this once and never again; give it to the receiver. */
            secret?: string;
        };
        ProviderField: {
            /** @description The field of POST /integrations/connect (next to `provider`). */
            name: string;
            /** @description A short label for a form. */
            label: string;
            /** @description What to give and where to find it; null when the platform says nothing more. */
            description: string | null;
            /**
             * @description `text`, `url`, `number`, `boolean`; `list`: an array of strings; `json`: any other shape, sent as the platform documents it.
             * @enum {string}
             */
            type: "text" | "url" | "number" | "boolean" | "list" | "json";
            /** @description Whether the connect request must carry it; a secret Herald generates when left out (a webhook's) is not required. */
            required: boolean;
            /** @description A credential (token, password, key): Herald stores it sealed and never shows it again. */
            secret: boolean;
            /** @description The value used when the field is left out, when there is one. */
            default?: unknown;
        };
        Provider: {
            /** @description The platform ID: `provider` in POST /integrations/connect, a channel's `identifier`. */
            identifier: string;
            name: string;
            /**
             * @description `sign-in`: POST /integrations/connect answers `{url}` where the person signs in on the platform (the form's fields, if any, go with it: e.g. Mastodon's `instance`); `form`: the fields are the channel's configuration, checked with the platform at once; `operator`: only the operator connects such channels (`herald admin channel create`).
             * @enum {string}
             */
            connect: "sign-in" | "form" | "operator";
            /** @description Whether channels of this platform can be connected on this server (as in GET /status). */
            available: boolean;
            /** @description When not available: why, and what the operator must set (e.g. the platform app's variables). */
            unavailable?: string;
            /** @description How a channel of this platform is connected, in words. */
            help: string;
            /** @description The fields POST /integrations/connect takes for this platform, generated from its configuration schema (or, for `sign-in`, from what its sign-in takes): one form, or one per way of connecting, of which one is sent. Empty for `operator`. */
            forms: {
                /** @description The way of connecting, when the platform offers several (e.g. Discord: a webhook or a bot). */
                title: string | null;
                fields: components["schemas"]["ProviderField"][];
            }[];
        };
        /** @description A file in the media library. Identical content already in the workspace answers with the existing file. */
        UploadResult: {
            /** @description The media ID. */
            id: string;
            /**
             * Format: uri
             * @description The hosted URL of the file; attach it to posts as an `image` value.
             */
            path: string;
        };
        Media: {
            id: string;
            /** @description The name the file was uploaded with. */
            name: string;
            /**
             * Format: uri
             * @description The hosted URL; what posts attach.
             */
            path: string;
            /**
             * @description `image` or `video`.
             * @enum {string}
             */
            type: "image" | "video";
            /** @description The content type, read from the file's content. */
            mimeType: string;
            /** @description Bytes (at most 10 MB for an image, 1 GB for a video). */
            size: number;
            /** @description Pixels, when cheap to read from the file; otherwise null. */
            width: number | null;
            /** @description Pixels, when cheap to read from the file; otherwise null. */
            height: number | null;
            /** @description A video's length in milliseconds, read from its movie header when it was stored; null for images and when unknown. */
            durationMs: number | null;
            /**
             * Format: date-time
             * @description When it entered the library (UTC).
             */
            createdAt: string;
            /** @description The upload link it first arrived through, if any. */
            uploadLinkId: string | null;
        };
        MediaPage: {
            /** @description Newest first. */
            results: components["schemas"]["Media"][];
            page: number;
            pageSize: number;
            /** @description Number of pages that can be read (of the newest 10,000 files). */
            pages: number;
            /** @description Number of files in the library. */
            total: number;
        };
        DeletedMedia: {
            id: string;
            /** @constant */
            deleted: true;
        };
        UploadLink: {
            /** @description The link ID; read what arrived with GET /upload-link/{id}. */
            id: string;
            /**
             * Format: uri
             * @description The page for a person to open; works signed out, from a phone too.
             */
            url: string;
            /**
             * Format: date-time
             * @description Two hours after creation (UTC).
             */
            expiresAt: string;
        };
        UploadLinkFile: {
            /** @description The media ID. */
            id: string;
            /** @description The name the person gave the file. */
            name: string;
            /**
             * Format: uri
             * @description The hosted URL; what is attached to a post.
             */
            path: string;
            /**
             * @description `image` or `video`.
             * @enum {string}
             */
            type: "image" | "video";
        };
        UploadLinkContents: {
            /** @description The link ID. */
            id: string;
            /**
             * @description `empty` until the first file arrives; not an error: ask the person and query again.
             * @enum {string}
             */
            status: "empty" | "ready";
            /** @description Number of files. */
            count: number;
            /** @description Oldest first. */
            files: components["schemas"]["UploadLinkFile"][];
        };
        Notification: {
            id: string;
            /**
             * @description publish_failed, comment_failed, publish_confirmed (a post or comment reported as failed with an unknown outcome turned out published), channel_disconnected (needs reconnecting), limit_warning, webhook_disabled (a webhook endpoint disabled after about a day of failed deliveries), approval_requested (a post awaits an approver), post_approved or post_rejected (the decision of an approver; a rejection carries the comment and names the author).
             * @enum {string}
             */
            type: "publish_failed" | "comment_failed" | "publish_confirmed" | "channel_disconnected" | "limit_warning" | "webhook_disabled" | "approval_requested" | "post_approved" | "post_rejected";
            message: string;
            postId: string | null;
            /** @description The channel ID, when the notification is about one. */
            integration: string | null;
            createdAt: string;
            /** @description In GET /notifications: true when it is newer than the member's read marker (POST /notifications/read). */
            unread?: boolean;
        };
        NotificationPage: {
            notifications: components["schemas"]["Notification"][];
            page: number;
            pageSize: number;
            hasMore: boolean;
            /** @description How many notifications the member has not read (newer than their read marker, or all without one), counted up to 100: 100 means 100 or more. */
            unreadCount: number;
        };
        NotificationsRead: {
            /** @description How many notifications the member has not read (newer than their read marker, or all without one), counted up to 100: 100 means 100 or more. */
            unreadCount: number;
            /** @description The member's read marker now (a notification id); null when they have read none. */
            readUntil: string | null;
        };
        PostingSlot: {
            /**
             * @description The day of the week, in English, lower case.
             * @enum {string}
             */
            day: "sunday" | "monday" | "tuesday" | "wednesday" | "thursday" | "friday" | "saturday";
            /** @description The local time in the schedule's time zone, HH:MM (24-hour). */
            time: string;
        };
        /**
         * @example {
         *       "timeZone": "Europe/Paris",
         *       "slots": [
         *         {
         *           "day": "monday",
         *           "time": "09:00"
         *         },
         *         {
         *           "day": "monday",
         *           "time": "17:30"
         *         },
         *         {
         *           "day": "wednesday",
         *           "time": "12:00"
         *         }
         *       ]
         *     }
         */
        SetPostingSchedule: {
            /** @description An IANA time zone name (e.g. `Europe/Paris`, `Australia/Sydney`, `UTC`); slots are local times there. */
            timeZone: string;
            /** @description The weekly slots. Across a daylight-saving change a slot keeps its local time. A slot that does not exist on a day (the clocks spring forward over it) is moved forward by the gap (02:30 becomes 03:30); one that occurs twice (the clocks fall back) is used once, at its first occurrence. Slots that fall on the same instant are one slot. `[]`: nothing is queued on the channel (POST /posts with `type: "queue"` answers 409 `no_free_slot`). */
            slots: components["schemas"]["PostingSlot"][];
        };
        PostingSchedule: {
            /** @description An IANA time zone name (e.g. `Europe/Paris`, `Australia/Sydney`, `UTC`); slots are local times there. */
            timeZone: string;
            /** @description The weekly slots. Across a daylight-saving change a slot keeps its local time. A slot that does not exist on a day (the clocks spring forward over it) is moved forward by the gap (02:30 becomes 03:30); one that occurs twice (the clocks fall back) is used once, at its first occurrence. Slots that fall on the same instant are one slot. `[]`: nothing is queued on the channel (POST /posts with `type: "queue"` answers 409 `no_free_slot`). */
            slots: components["schemas"]["PostingSlot"][];
            /**
             * @description Where the schedule comes from: the channel's own, the workspace's default, or Herald's built-in default (every day at 09:00, 12:00 and 17:00 UTC) when the workspace has set none.
             * @enum {string}
             */
            source: "channel" | "workspace" | "default";
            /** @description When it was last set (null for the built-in default). */
            updatedAt: string | null;
        };
        FreeSlot: {
            /** @description The channel's next free slot, ISO 8601 UTC. */
            date: string;
        };
        /**
         * @example {
         *       "roles": [
         *         "contributor"
         *       ],
         *       "approvers": [
         *         "owner",
         *         "admin",
         *         "editor"
         *       ],
         *       "updatedAt": null
         *     }
         */
        ApprovalSettings: {
            /** @description The roles whose scheduled posts wait for approval: `contributor`, `editor`, both, or none (empty: nobody is asked, the default). Owners and admins are never asked. */
            roles: ("editor" | "contributor")[];
            /** @description Who may approve and reject: owners, admins, and editors unless editors themselves need approval. */
            approvers: ("owner" | "admin" | "editor" | "contributor" | "viewer")[];
            /** @description When the setting was last changed; null while it was never set. */
            updatedAt: string | null;
        };
        /**
         * @example {
         *       "roles": [
         *         "contributor"
         *       ]
         *     }
         */
        SetApprovalSettings: {
            /** @description The roles whose scheduled posts wait for approval: `contributor`, `editor`, both, or none (empty: nobody is asked, the default). Owners and admins are never asked. */
            roles: ("editor" | "contributor")[];
        };
        /**
         * @example {
         *       "comment": "Good to go."
         *     }
         */
        ApprovePost: {
            /** @description A note kept with the decision (optional). */
            comment?: string;
        };
        /**
         * @example {
         *       "comment": "Please link the announcement, not the home page."
         *     }
         */
        RejectPost: {
            /** @description Why it is rejected: shown to the author (required). */
            comment: string;
        };
        AwaitingApproval: {
            /** @description Posts awaiting approval, earliest publish date first (at most 500). */
            posts: components["schemas"]["Post"][];
        };
        Repeat: {
            /**
             * @description `daily`, `weekly` (on `days`), `monthly` (on `monthDay`), or `rrule`: an RFC 5545 recurrence rule given in `rrule`.
             * @enum {string}
             */
            frequency: "daily" | "weekly" | "monthly" | "rrule";
            /** @description Every `interval` days, weeks or months (default 1). */
            interval?: number;
            /** @description `weekly` only: the days of the week (default: the day of `start`). */
            days?: ("sunday" | "monday" | "tuesday" | "wednesday" | "thursday" | "friday" | "saturday")[];
            /** @description `monthly` only: the day of the month, 1 to 31, or -1 for the last (default: the day of `start`). A month without that day has no occurrence. */
            monthDay?: number;
            /** @description `rrule` only: the rule, e.g. `FREQ=WEEKLY;BYDAY=TU,TH` or `FREQ=MONTHLY;BYDAY=MO;BYSETPOS=1` (the first Monday). Without DTSTART, TZID, UNTIL or COUNT (they are `start`, `timeZone`, `until` and `count`); at most hourly. */
            rrule?: string;
            /** @description An IANA time zone (e.g. `Europe/Berlin`, `Australia/Sydney`): the rule runs on its local time. */
            timeZone: string;
            /** @description The first occurrence's local date and time in `timeZone`, without a zone (`2026-12-01T09:00`). Every occurrence keeps this local time across daylight-saving changes; a time the clocks skip that day is moved forward by the gap, a time that occurs twice is the first. */
            start: string;
            /** @description Ends after this many occurrences (counted from `start`). */
            count?: number;
            /**
             * Format: date-time
             * @description No occurrence after this instant (ISO 8601 UTC). Without `count` or `until` the series goes on until deleted.
             */
            until?: string;
        };
        /**
         * @example {
         *       "repeat": {
         *         "frequency": "weekly",
         *         "days": [
         *           "monday",
         *           "thursday"
         *         ],
         *         "start": "2026-12-07T09:00",
         *         "timeZone": "Europe/Berlin",
         *         "count": 20
         *       },
         *       "posts": [
         *         {
         *           "integration": {
         *             "id": "CHANNEL_ID"
         *           },
         *           "value": [
         *             {
         *               "content": "<p>Tips of the week: herald.example/tips</p>"
         *             }
         *           ]
         *         }
         *       ]
         *     }
         * @example {
         *       "repeat": {
         *         "frequency": "rrule",
         *         "rrule": "FREQ=MONTHLY;BYDAY=MO;BYSETPOS=1",
         *         "start": "2026-12-07T08:30",
         *         "timeZone": "Australia/Sydney"
         *       },
         *       "posts": [
         *         {
         *           "integration": {
         *             "id": "CHANNEL_ID"
         *           },
         *           "value": [
         *             {
         *               "content": "<p>Our monthly newsletter is out</p>"
         *             }
         *           ]
         *         }
         *       ]
         *     }
         */
        CreateSeries: {
            repeat: components["schemas"]["Repeat"];
            /** @description One item per channel, as in POST /posts: what every occurrence publishes. */
            posts: components["schemas"]["PostItem"][];
            /**
             * @description Internal labels of every occurrence.
             * @default []
             */
            tags: string[];
            /**
             * @description Replace links in the published text with short links served by this service.
             * @default false
             */
            shortLink: boolean;
        };
        /**
         * @example {
         *       "posts": [
         *         {
         *           "integration": {
         *             "id": "CHANNEL_ID"
         *           },
         *           "value": [
         *             {
         *               "content": "<p>New text from the next occurrence on</p>"
         *             }
         *           ]
         *         }
         *       ]
         *     }
         */
        UpdateSeries: {
            /** @description A new rule, replacing the current one from now on. */
            repeat?: components["schemas"]["Repeat"];
            /** @description What every future occurrence publishes, replacing the current items. */
            posts?: components["schemas"]["PostItem"][];
            tags?: string[];
            shortLink?: boolean;
        };
        Series: {
            id: string;
            repeat: components["schemas"]["Repeat"];
            /** @description The RFC 5545 RRULE the series runs (from `repeat`). */
            rule: string;
            /** @description One item per channel, as in POST /posts: what every occurrence publishes. */
            posts: components["schemas"]["PostItem"][];
            tags: string[];
            shortLink: boolean;
            /** @description The next occurrence after now, ISO 8601 UTC; null once the series has ended. */
            nextOccurrence: string | null;
            /** @description Occurrences up to this instant are posts in the calendar (GET /posts); later ones are written as they come within 60 days. */
            writtenUntil: string;
            /** @description Occurrences that were never posts because their time had passed by more than 120 minutes when the server reached them (an outage). An occurrence already in the calendar that is reached that late is not published either: it goes to ERROR with `errorKind: "skipped"`. */
            skipped: number;
            /** @description True once the rule has no occurrence left. */
            ended: boolean;
            createdAt: string;
            updatedAt: string;
        };
        SeriesList: {
            series: components["schemas"]["Series"][];
        };
        DeletedSeries: {
            id: string;
            /** @description The future occurrences removed from the calendar (post ids). */
            removed: string[];
        };
        ImportRow: {
            /** @description Channel IDs: an array, or one string with the IDs separated by `|` (as in a CSV cell). */
            channels: string[] | string;
            /** @description ISO 8601 with `Z` or an offset (e.g. `2026-12-01T09:30:00Z`), or `queue` for each channel's next free slot. */
            date: string;
            /** @description The post: plain text, Markdown or HTML, as `format` says. */
            content: string;
            /**
             * @description How `content` and comments are written (default: HTML when it has tags, else text).
             * @enum {string}
             */
            format?: "text" | "markdown" | "html";
            /**
             * @description `schedule` (default) or `draft` (placed in the calendar at `date`).
             * @enum {string}
             */
            type?: "schedule" | "draft";
            /** @description The `path`s (URLs) of files in this workspace's media library, or other http(s) URLs fetched into the library (as POST /upload-from-url; a dry run fetches them too, and needs `media:write`): an array, or one string separated by `|`. */
            media?: string[] | string;
            /** @description Comments under the post, in order: an array of `{content, delay}` (delay in minutes after the previous), or, in a CSV cell, that array as JSON. */
            comments?: {
                content: string;
                delay?: number;
            }[] | string;
            /** @description Platform settings for every channel of the row (an object, or JSON in a CSV cell); as in POST /posts' `settings`. */
            settings?: {
                [key: string]: unknown;
            } | string;
            /** @description Internal labels: an array, or one string separated by `|`. */
            tags?: string[] | string;
        };
        /**
         * @example {
         *       "dryRun": true,
         *       "rows": [
         *         {
         *           "channels": [
         *             "CHANNEL_ID"
         *           ],
         *           "date": "2026-12-01T09:30:00Z",
         *           "content": "Hello from a **spreadsheet**",
         *           "format": "markdown"
         *         },
         *         {
         *           "channels": "CHANNEL_ID|OTHER_CHANNEL_ID",
         *           "date": "queue",
         *           "content": "At the next free slot",
         *           "tags": "import|december"
         *         }
         *       ]
         *     }
         * @example {
         *       "csv": "channels,date,content\nCHANNEL_ID,2026-12-01T09:30:00Z,Hello\n",
         *       "partial": true
         *     }
         */
        CreateImport: {
            /** @description The rows as JSON objects (see ImportRow). */
            rows?: {
                [key: string]: unknown;
            }[];
            /** @description The rows as CSV text with a header line naming the ImportRow fields (`channels,date,content,…`). Give `rows` or `csv`. */
            csv?: string;
            /**
             * @description Check every row exactly as a real import would, and create nothing.
             * @default false
             */
            dryRun: boolean;
            /**
             * @description Create the rows that pass and report the others. Without it an import is all or nothing: one bad row and nothing is created.
             * @default false
             */
            partial: boolean;
        };
        ImportError: {
            /** @description The row number: 1 is the first row after a CSV header (or the first element of `rows`); 0 for the import as a whole (why it stopped). */
            row: number;
            /** @description The row field at fault (`channels`, `date`, `content`, `media`, `settings.title`, …), or `row`. */
            field: string;
            message: string;
        };
        Import: {
            id: string;
            /**
             * @description `running` (read it again by id), `done` (checked, and created unless a dry run), `invalid` (rows were refused and, without `partial`, nothing was created), or `stopped`: the credential that started it lost its access while it ran (a key revoked, an app's access or a session ended, a member removed, a channel no longer allowed), so it created nothing more; the reason is its last error (row 0, field `import`), the rows created before stay.
             * @enum {string}
             */
            status: "running" | "done" | "invalid" | "stopped";
            dryRun: boolean;
            partial: boolean;
            /** @description Rows in the import. */
            total: number;
            /** @description Rows checked so far. */
            validated: number;
            /** @description Rows whose posts were created so far. */
            created: number;
            /** @description Every problem found, by row and field. */
            errors: components["schemas"]["ImportError"][];
            /** @description The posts created, by row. */
            posts: {
                row: number;
                postIds: string[];
                group: string;
            }[];
            createdAt: string;
            updatedAt: string;
        };
        /** @description What this service is, where its documentation lives, and how to authenticate. */
        Status: {
            /** @description Service name. */
            name: string;
            /** @constant */
            status: "ok";
            /** @constant */
            version: "v1";
            /**
             * Format: date-time
             * @description The server clock, UTC with milliseconds: the authoritative clock for scheduling.
             */
            time: string;
            documentation: {
                /** Format: uri */
                developers: string;
                /** Format: uri */
                openapi: string;
                /** Format: uri */
                openapiMirror: string;
                /** Format: uri */
                swaggerUi: string;
                /** Format: uri */
                llms: string;
            };
            authentication: {
                apiKey: {
                    /** @constant */
                    header: "Authorization";
                    format: string;
                    selfServe: boolean;
                };
                oauth2: {
                    /** Format: uri */
                    resource: string;
                    /**
                     * Format: uri
                     * @description OAuth 2.0 protected resource metadata (RFC 9728).
                     */
                    metadata: string;
                    /**
                     * Format: uri
                     * @description The authorization server (issuer) that grants tokens for this API.
                     */
                    issuer: string;
                    /**
                     * Format: uri
                     * @description Authorization server metadata (RFC 8414).
                     */
                    authorizationServerMetadata: string;
                    /**
                     * Format: uri
                     * @description The MCP server, a second resource: tokens are bound to one resource (RFC 8707).
                     */
                    mcpResource: string;
                    /**
                     * Format: uri
                     * @description Protected resource metadata of the MCP server (RFC 9728).
                     */
                    mcpMetadata: string;
                    tokenPrefix: string;
                    header: string;
                };
                /** Format: uri */
                signUp: string;
                /** @constant */
                salesContactRequired: false;
            };
            mcp: {
                /** Format: uri */
                endpoint: string;
                /** @constant */
                transport: "streamable-http";
            };
            scopes: {
                rest: string[];
                mcp: string[];
            };
            rateLimits: {
                headers: string[];
            };
            versioning: {
                /** @constant */
                scheme: "url-path";
                /** @constant */
                current: "v1";
            };
            /** @description The platforms this server publishes to. Those signed in through an OAuth app (LinkedIn, X, Threads, TikTok, Pinterest, Reddit, Facebook, Instagram, YouTube, Google Business Profile) need the app the operator registers with the platform; without it they are listed here as unavailable. */
            platforms: {
                /** @description The platform id: `provider` when connecting, `settings.__type` in posts. */
                identifier: string;
                name: string;
                /** @description Whether channels of this platform can be connected on this server. */
                available: boolean;
                /** @description When not available: why, and what the operator must set (e.g. the platform app's variables). */
                unavailable?: string;
            }[];
        };
        ConnectionCheck: {
            connected: boolean;
            /** @description The workspace the request acted on (only when connected). */
            workspace?: {
                id: string;
                name: string;
            };
            /**
             * @description The key's owner's role in that workspace (only when connected).
             * @enum {string}
             */
            role?: "owner" | "admin" | "editor" | "contributor" | "viewer";
            /** @description The scopes the key may use there: its own, within its owner's role (only when connected). */
            scopes?: string[];
        };
        Workspace: {
            /** @description Workspace ID; send it as the `showorg` header to act on this workspace. */
            id: string;
            name: string;
            /**
             * @description The role the key's owner holds here: owner, admin, editor (read, draft, publish, upload), contributor (read, draft, upload) or viewer (read).
             * @enum {string}
             */
            role: "owner" | "admin" | "editor" | "contributor" | "viewer";
            /** @description True for the workspace this request acted on (the `showorg` one, or the only one). */
            current: boolean;
            /** @description Whether the workspace's plan includes the API; calls acting on it answer 401 otherwise. */
            apiAccess: boolean;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;

// The parts of oidc-provider (which ships no types) that Herald uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export type AdapterPayload = Record<string, unknown> & {
    grantId?: string;
    userCode?: string;
    uid?: string;
    accountId?: string;
    clientId?: string;
    client_id?: string;
    consumed?: number;
    exp?: number;
  };

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number | undefined): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export type InteractionDetails = {
    uid: string;
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    params: Record<string, unknown> & { client_id?: string; scope?: string; resource?: string | string[]; redirect_uri?: string };
    session?: { accountId?: string };
    grantId?: string;
  };

  export interface GrantInstance {
    addOAuthScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  export interface ClientInstance {
    clientId: string;
    clientName?: string;
    redirectUris?: string[];
    grantTypeAllowed(type: string): boolean;
    metadata(): Record<string, unknown>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    proxy: boolean;
    issuer: string;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionResult(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<string>;
    on(event: string, listener: (...args: any[]) => void): this;
    Grant: (new (input: { accountId: string; clientId: string }) => GrantInstance) & {
      find(id: string): Promise<GrantInstance | undefined>;
    };
    Client: { find(id: string): Promise<ClientInstance | undefined>; prototype: { compareClientSecret(actual: string): Promise<boolean> } };
    AccessToken: { prototype: { generateTokenId(): string } };
    DeviceCode: {
      findByUserCode(
        userCode: string,
        options?: { ignoreExpiration?: boolean },
      ): Promise<{ isExpired: boolean; accountId?: string; error?: string; inFlight?: boolean } | undefined>;
    };
    RefreshToken: { prototype: { generateTokenId(): string } };
  }

  export const errors: Record<string, new (description?: string) => Error>;
}

import { banner, csrfField, when } from '../accounts/account-pages.html.ts';
import { html } from '../web/html.ts';
import { layout, type PageChrome } from '../web/layout.ts';
import type { Delivery, Endpoint, EndpointWithSecret } from './webhooks.service.ts';
import { SUBSCRIBABLE_EVENT_TYPES } from './webhooks.table.ts';

function state(endpoint: Endpoint): string {
  if (endpoint.enabled) return endpoint.failingSince ? `enabled, failing since ${when(endpoint.failingSince)}` : 'enabled';
  return endpoint.disabledReason === 'failing' ? 'disabled by Herald: every delivery failed for about a day' : 'disabled';
}

/** A new signing secret, shown once. */
export type ShownSecret = { endpoint: EndpointWithSecret; rotated: boolean };

/** Developer settings: the workspace's webhook endpoints, their latest deliveries, and managing them (owners and admins). */
export function webhooksPage(input: {
  chrome: PageChrome;
  csrf: string;
  workspaceName: string;
  endpoints: Array<{ endpoint: Endpoint; deliveries: Delivery[] }>;
  shown?: ShownSecret | undefined;
  error?: string | undefined;
  notice?: string | undefined;
}): string {
  const { csrf } = input;
  const shown = input.shown
    ? html`<section class="secret" aria-labelledby="secret-title">
  <h2 id="secret-title">${input.shown.rotated ? 'New signing secret for' : 'Signing secret of'} ${input.shown.endpoint.url}</h2>
  <p>Copy it now: it is shown only this once.${input.shown.rotated ? ` The old secret keeps signing beside it until ${when(input.shown.endpoint.previousSecretValidUntil)}.` : ''}</p>
  <code id="new-secret">${input.shown.endpoint.secret}</code>
  <button type="button" class="secondary" data-copy="new-secret" hidden>Copy</button>
</section>`
    : '';
  const deliveries = (list: Delivery[]) =>
    list.length
      ? html`<ul class="deliveries">${list.map(
          (d) =>
            html`<li>${when(d.createdAt)}: <code>${d.type}</code>, ${d.state}${d.lastStatus === null ? '' : ` (${d.lastStatus})`}, ${String(d.attempts)} attempt${d.attempts === 1 ? '' : 's'}${d.lastError && d.state !== 'succeeded' ? html` <span class="muted">${d.lastError}</span>` : ''}</li>`,
        )}</ul>`
      : html`<p class="muted">No deliveries yet.</p>`;
  const endpoints = input.endpoints.length
    ? html`<ul class="cards">${input.endpoints.map(
        ({ endpoint: e, deliveries: list }) => html`<li data-endpoint-id="${e.id}">
  <div class="title"><strong>${e.url}</strong> <span class="tag">${e.enabled ? 'enabled' : 'disabled'}</span></div>
  <dl class="facts">
    ${e.description ? html`<dt>Description</dt><dd>${e.description}</dd>` : ''}
    <dt>State</dt><dd>${state(e)}</dd>
    <dt>Events</dt><dd>${e.eventTypes.join(', ')}</dd>
    <dt>Created</dt><dd>${when(e.createdAt)}</dd>
  </dl>
  <h3>Latest deliveries</h3>
  ${deliveries(list)}
  <div class="actions">
    <form class="inline" method="post" action="/account/webhooks/${e.id}/${e.enabled ? 'disable' : 'enable'}">${csrfField(csrf)}<button type="submit" class="secondary">${e.enabled ? 'Disable' : 'Enable'}</button></form>
    ${e.enabled ? html`<form class="inline" method="post" action="/account/webhooks/${e.id}/test">${csrfField(csrf)}<button type="submit" class="secondary">Send a test event</button></form>` : ''}
    <form class="inline" method="post" action="/account/webhooks/${e.id}/rotate">${csrfField(csrf)}<button type="submit" class="secondary">Rotate secret</button></form>
    <form class="inline" method="post" action="/account/webhooks/${e.id}/delete">${csrfField(csrf)}<button type="submit" class="danger">Delete</button></form>
  </div>
</li>`,
      )}</ul>`
    : html`<p class="muted">No webhook endpoints yet.</p>`;
  const body = html`<h1>Webhooks</h1>
<p class="muted">Endpoints of <strong>${input.workspaceName}</strong> that receive its events, signed by Standard Webhooks (see the <a href="/docs">API reference</a>).</p>
${banner('bad', input.error)}${banner('good', input.notice)}${shown}
<h2>Endpoints</h2>
${endpoints}
<h2>Add an endpoint</h2>
<form method="post" action="/account/webhooks">
  ${csrfField(csrf)}
  <label for="webhook-url">URL (https)</label>
  <input id="webhook-url" name="url" type="url" maxlength="2000" required placeholder="https://example.com/herald">
  <label for="webhook-description">Description</label>
  <input id="webhook-description" name="description" type="text" maxlength="200">
  <fieldset><legend>Events</legend>${SUBSCRIBABLE_EVENT_TYPES.map((type) => html`<label><input type="checkbox" name="eventTypes" value="${type}"> ${type}</label>`)}</fieldset>
  <div class="actions"><button type="submit">Add endpoint</button></div>
</form>`;
  return layout('Webhooks', body, input.chrome);
}

import { html, SafeHtml } from '../web/html.ts';
import { pageDocument, pageHeaders } from '../web/layout.ts';
import { ACCEPTED_SUMMARY, ACCEPTED_TYPES } from './media-content.ts';

/**
 * The page's behaviour, sent inline (its hash is in the page's CSP). Plain ES5-style script,
 * no build step: files are checked here first for a quick answer (the server checks again),
 * then sent one request each, three at a time, with a progress bar per file.
 */
const SCRIPT = String.raw`
(function () {
  'use strict';
  var config = JSON.parse(document.getElementById('upload-config').textContent);
  var picker = document.getElementById('picker');
  var zone = document.getElementById('drop');
  var list = document.getElementById('files');
  var banner = document.getElementById('banner');
  var counter = document.getElementById('count');
  var queue = [];
  var active = 0;
  var expired = false;
  var PARALLEL = 3;

  function human(bytes) {
    if (bytes >= 1073741824) return (Math.round(bytes / 107374182.4) / 10) + ' GB';
    if (bytes >= 1048576) return (Math.round(bytes / 104857.6) / 10) + ' MB';
    if (bytes >= 1024) return Math.round(bytes / 1024) + ' KB';
    return bytes + ' bytes';
  }

  function kindOf(file) {
    var type = (file.type || '').toLowerCase();
    if (config.types[type]) return config.types[type];
    var dot = file.name.lastIndexOf('.');
    return dot >= 0 ? config.extensions[file.name.slice(dot + 1).toLowerCase()] || null : null;
  }

  function updateCount() {
    var done = list.querySelectorAll('li.done').length;
    counter.textContent = done === 0 ? '' : done === 1 ? '1 file uploaded.' : done + ' files uploaded.';
  }

  function blankTile() {
    var tile = document.createElement('span');
    tile.className = 'thumb';
    return tile;
  }

  function row(name) {
    var li = document.createElement('li');
    li.className = 'file';
    var title = document.createElement('div');
    title.className = 'name';
    title.textContent = name;
    var bar = document.createElement('progress');
    bar.max = 100;
    bar.value = 0;
    bar.setAttribute('aria-label', 'Upload progress of ' + name);
    var status = document.createElement('div');
    status.className = 'status';
    var r = { li: li, thumb: blankTile(), bar: bar, status: status, preview: null };
    li.appendChild(r.thumb);
    li.appendChild(title);
    li.appendChild(bar);
    li.appendChild(status);
    list.insertBefore(li, list.firstChild);
    return r;
  }

  function showThumb(r, url, kind) {
    var media = document.createElement(kind === 'video' ? 'video' : 'img');
    media.className = 'thumb';
    if (kind === 'video') {
      media.muted = true;
      media.preload = 'metadata';
    } else {
      media.alt = '';
    }
    // A picture the browser cannot show (the server will say why) gets a plain tile, not a broken icon.
    media.addEventListener('error', function () {
      if (r.thumb !== media) return;
      r.thumb = blankTile();
      r.li.replaceChild(r.thumb, media);
    });
    media.src = url;
    r.li.replaceChild(media, r.thumb);
    r.thumb = media;
  }

  function dropPreview(r) {
    if (r.preview) URL.revokeObjectURL(r.preview);
    r.preview = null;
  }

  function fail(r, message, retry) {
    dropPreview(r);
    r.li.className = 'file failed';
    r.status.textContent = message;
    if (retry) {
      var again = document.createElement('button');
      again.type = 'button';
      again.className = 'retry';
      again.textContent = 'Try again';
      again.addEventListener('click', function () {
        r.status.textContent = 'Waiting…';
        r.li.className = 'file';
        retry();
      });
      r.status.appendChild(again);
    }
  }

  function complete(r, file) {
    dropPreview(r);
    r.li.className = 'file done';
    r.li.setAttribute('data-media-id', file.id);
    r.bar.value = 100;
    r.status.textContent = 'Uploaded';
    showThumb(r, file.path, file.type);
    updateCount();
  }

  function markExpired(message) {
    expired = true;
    banner.textContent = message;
    banner.hidden = false;
    picker.disabled = true;
    zone.hidden = true;
    while (queue.length) {
      var job = queue.shift();
      fail(job.row, 'Not sent: the link no longer works.');
    }
  }

  function messageOf(xhr) {
    var body = xhr.response;
    if (body && typeof body.msg === 'string') return body.msg;
    if (body && body.message) return [].concat(body.message).join(' ');
    return 'The upload failed (HTTP ' + xhr.status + ').';
  }

  function send(job) {
    active++;
    job.row.status.textContent = 'Uploading…';
    var xhr = new XMLHttpRequest();
    xhr.open('POST', config.uploadUrl);
    xhr.responseType = 'json';
    xhr.upload.addEventListener('progress', function (event) {
      if (!event.lengthComputable) return;
      var percent = Math.min(99, Math.floor((event.loaded / event.total) * 100));
      job.row.bar.value = percent;
      job.row.status.textContent = 'Uploading… ' + percent + '%';
    });
    function finished() {
      active--;
      pump();
    }
    xhr.addEventListener('load', function () {
      if (xhr.status === 200) {
        complete(job.row, xhr.response);
      } else if (xhr.status === 429) {
        var wait = Number(xhr.getResponseHeader('Retry-After')) || 5;
        job.row.status.textContent = 'Waiting ' + wait + ' s (too many uploads at once)…';
        setTimeout(function () {
          queue.unshift(job);
          pump();
        }, wait * 1000);
      } else if (xhr.status === 410 || xhr.status === 404) {
        fail(job.row, messageOf(xhr));
        markExpired(messageOf(xhr));
      } else {
        fail(job.row, messageOf(xhr), xhr.status >= 500 ? function () { enqueue(job); } : null);
      }
      finished();
    });
    xhr.addEventListener('error', function () {
      fail(job.row, 'The connection failed.', function () { enqueue(job); });
      finished();
    });
    var form = new FormData();
    form.append('file', job.file, job.file.name);
    xhr.send(form);
  }

  function pump() {
    while (!expired && active < PARALLEL && queue.length) send(queue.shift());
  }

  function enqueue(job) {
    queue.push(job);
    pump();
  }

  function add(files) {
    for (var i = 0; i < files.length; i++) {
      var file = files[i];
      var r = row(file.name);
      var kind = kindOf(file);
      var limit = kind === 'video' ? config.maxVideoBytes : config.maxImageBytes;
      if (expired) {
        fail(r, 'Not sent: the link no longer works.');
      } else if (!kind) {
        fail(r, 'Not a supported type. Accepted: ' + config.acceptedSummary + '.');
      } else if (file.size === 0) {
        fail(r, 'This file is empty.');
      } else if (file.size > limit) {
        var size = human(file.size) === human(limit) ? 'just over ' + human(limit) : human(file.size);
        fail(r, 'Too large: ' + (kind === 'video' ? 'videos' : 'images') + ' can be at most ' + human(limit) + ' (this file is ' + size + ').');
      } else {
        if (kind === 'image') {
          r.preview = URL.createObjectURL(file);
          showThumb(r, r.preview, kind);
        }
        r.status.textContent = 'Waiting…';
        enqueue({ file: file, row: r });
      }
    }
  }

  picker.addEventListener('change', function () {
    add(picker.files);
    picker.value = '';
  });
  ['dragenter', 'dragover'].forEach(function (name) {
    zone.addEventListener(name, function (event) {
      event.preventDefault();
      zone.classList.add('over');
    });
  });
  ['dragleave', 'drop'].forEach(function (name) {
    zone.addEventListener(name, function () {
      zone.classList.remove('over');
    });
  });
  zone.addEventListener('drop', function (event) {
    event.preventDefault();
    if (event.dataTransfer && event.dataTransfer.files) add(event.dataTransfer.files);
  });
  document.addEventListener('dragover', function (event) { event.preventDefault(); });
  document.addEventListener('drop', function (event) { event.preventDefault(); });

  // Counted from the server's clock: this device's own clock may well be wrong.
  var until = new Date(Date.now() + config.remainingMs);
  document.getElementById('until').textContent = until.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
  setTimeout(function () {
    markExpired('This link has expired. Ask for a new one to send more files.');
  }, config.remainingMs);

  var xhr = new XMLHttpRequest();
  xhr.open('GET', config.filesUrl);
  xhr.responseType = 'json';
  xhr.addEventListener('load', function () {
    if (xhr.status !== 200 || !xhr.response) return;
    xhr.response.files.slice().forEach(function (file) {
      complete(row(file.name), file);
    });
  });
  xhr.send();
})();
`;

/**
 * Response headers of every upload page: previews may come from the media store's origin, and
 * the page posts no form.
 */
export function uploadPageHeaders(mediaOrigin: string): Record<string, string> {
  return pageHeaders({
    script: SCRIPT,
    img: `'self' ${mediaOrigin} blob: data:`,
    media: `'self' ${mediaOrigin} blob:`,
    formAction: "'none'",
  });
}

/** The page behind an active link. `uploadUrl` and `filesUrl` are relative to the site. */
export function uploadPageHtml(input: {
  uploadUrl: string;
  filesUrl: string;
  /** How long the link still works, by the server's clock. */
  remainingMs: number;
  maxImageBytes: number;
  maxVideoBytes: number;
}): string {
  const types = Object.fromEntries(ACCEPTED_TYPES.map((t) => [t.mimeType, t.type]));
  const extensions: Record<string, string> = Object.fromEntries(ACCEPTED_TYPES.map((t) => [t.extension, t.type]));
  Object.assign(extensions, { jpeg: 'image', tiff: 'image' });
  const accept = [...ACCEPTED_TYPES.map((t) => t.mimeType), ...Object.keys(extensions).map((e) => `.${e}`)].join(',');
  const config = JSON.stringify({ ...input, types, extensions, acceptedSummary: ACCEPTED_SUMMARY }).replace(/</g, '\\u003c');
  const mb = (bytes: number) => `${Math.round(bytes / 1024 ** 2)} MB`;
  return pageDocument({
    title: 'Send files',
    script: SCRIPT,
    main: html`<h1>Send files</h1>
<p>Add photos and videos here; they go straight to the library of the team that sent you this link. No account needed.</p>
<p class="muted">Images (JPEG, PNG, GIF, WEBP, AVIF, BMP, TIFF) up to ${mb(input.maxImageBytes)}, MP4 videos up to ${input.maxVideoBytes >= 1024 ** 3 ? `${Math.round(input.maxVideoBytes / 1024 ** 3)} GB` : mb(input.maxVideoBytes)}. This link works until <span id="until"></span>.</p>
<div id="banner" class="banner bad" role="alert" hidden></div>
<input type="file" id="picker" class="visually-hidden" multiple accept="${accept}">
<label for="picker" id="drop" class="drop">
<strong>Drop files here</strong>
<span class="muted">or</span>
<span class="button">Choose files</span>
</label>
<p id="count" class="muted" aria-live="polite"></p>
<ul id="files" class="files" aria-live="polite"></ul>
<script type="application/json" id="upload-config">${new SafeHtml(config)}</script>`,
  });
}

/** The answer for a link that no longer works; nothing else is said about it. */
export function closedPageHtml(kind: 'expired' | 'inactive' | 'unknown'): string {
  const text: [string, string] = {
    expired: ['This link has expired', 'Upload links work for two hours. Ask the person who sent it to you for a new one.'],
    inactive: ['This link is no longer active', 'It was switched off by the team that sent it. Ask them for a new one.'],
    unknown: ['This link is not valid', 'Check that you copied the whole address, or ask for a new link.'],
  }[kind] as [string, string];
  return pageDocument({ title: text[0], main: html`<h1>${text[0]}</h1><p>${text[1]}</p>` });
}

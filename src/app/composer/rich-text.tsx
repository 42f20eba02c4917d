import { Editor } from '@tiptap/core';
import StarterKit from '@tiptap/starter-kit';
import { useEffect, useRef, useState } from 'preact/hooks';

/** The link addresses the API stores (src/content/html.ts allows these schemes only). */
const LINK = /^(https?:\/\/[^\s]+|mailto:[^\s@]+@[^\s@]+)$/i;
const EMAIL = /^[^\s@/:]+@[^\s@/]+\.[^\s@/]+$/;

/**
 * What a person typed as a link address, as the address stored: an e-mail address becomes a
 * `mailto:` link, a bare domain an `https://` one; null for anything else (another scheme).
 */
export function linkAddress(typed: string): string | null {
  const value = typed.trim();
  if (!value) return null;
  const address = EMAIL.test(value) ? `mailto:${value}` : /^[a-z][a-z0-9+.-]*:/i.test(value) ? value : `https://${value}`;
  if (!LINK.test(address)) return null;
  try {
    new URL(address);
  } catch {
    return null;
  }
  return address;
}

/**
 * The editor's HTML as the API stores it: empty when there is no text, a list item's lone
 * paragraph unwrapped (`<li>text</li>`, so platforms that take plain text get "- text" lines),
 * and no empty paragraphs before or after the text. Read and written through an inert document.
 */
export function storedHtml(editor: Editor): string {
  if (editor.isEmpty) return '';
  const body = new DOMParser().parseFromString(editor.getHTML(), 'text/html').body;
  for (const item of body.querySelectorAll('li')) {
    const only = item.children.length === 1 && item.childNodes.length === 1 ? item.firstElementChild : null;
    if (only?.tagName === 'P') only.replaceWith(...only.childNodes);
  }
  const blank = (node: ChildNode | null) =>
    node !== null && node.nodeName === 'P' && !(node.textContent ?? '').trim() && !(node as Element).querySelector('br');
  while (blank(body.firstChild)) body.firstChild!.remove();
  while (blank(body.lastChild)) body.lastChild!.remove();
  return body.innerHTML;
}

type Tool = { name: string; glyph: string; keys?: string; active: (editor: Editor) => boolean; run: (editor: Editor) => void };

const TOOLS: Tool[] = [
  {
    name: 'Bold',
    glyph: 'B',
    keys: 'Ctrl+B',
    active: (e) => e.isActive('bold'),
    run: (e) => e.chain().focus().toggleBold().run(),
  },
  {
    name: 'Italic',
    glyph: 'I',
    keys: 'Ctrl+I',
    active: (e) => e.isActive('italic'),
    run: (e) => e.chain().focus().toggleItalic().run(),
  },
  { name: 'Link', glyph: 'Link', keys: 'Ctrl+K', active: (e) => e.isActive('link'), run: () => undefined },
  {
    name: 'Bulleted list',
    glyph: '• List',
    keys: 'Ctrl+Shift+8',
    active: (e) => e.isActive('bulletList'),
    run: (e) => e.chain().focus().toggleBulletList().run(),
  },
  {
    name: 'Numbered list',
    glyph: '1. List',
    keys: 'Ctrl+Shift+7',
    active: (e) => e.isActive('orderedList'),
    run: (e) => e.chain().focus().toggleOrderedList().run(),
  },
  {
    name: 'Quote',
    glyph: '“ Quote',
    keys: 'Ctrl+Shift+B',
    active: (e) => e.isActive('blockquote'),
    run: (e) => e.chain().focus().toggleBlockquote().run(),
  },
];

/**
 * A rich-text field (Tiptap on ProseMirror) whose value is the HTML the API stores: paragraphs,
 * line breaks (Shift+Enter), bold, italic, links (http, https and mailto only), lists and quotes.
 * What is typed is text: markup typed (`<b>`) stays text. A toolbar (one Tab stop, arrow keys
 * between its buttons; Alt+F10 reaches it from the text) offers the formats; the usual shortcuts
 * work too. The text is labelled by `label` for screen readers.
 */
export function RichText({
  id,
  label,
  hideLabel = false,
  initial,
  onChange,
  tall = false,
}: {
  id: string;
  label: string;
  hideLabel?: boolean;
  /** The HTML the field opens with; later changes come from the person only (give it another `key` to open it with another text). */
  initial: string;
  onChange: (html: string) => void;
  tall?: boolean;
}) {
  const mount = useRef<HTMLDivElement>(null);
  const toolbar = useRef<HTMLDivElement>(null);
  const linkInput = useRef<HTMLInputElement>(null);
  const [editor, setEditor] = useState<Editor | null>(null);
  const [, setTick] = useState(0);
  const [focusIndex, setFocusIndex] = useState(0);
  const [link, setLink] = useState<{ href: string; error: string | null } | null>(null);
  const latest = useRef({ id, onChange, openLink: () => {} });
  latest.current.onChange = onChange;
  latest.current.id = id;

  useEffect(() => {
    const instance = new Editor({
      element: mount.current!,
      // Tiptap's own style element would break the page's CSP: its few rules are in app.css.
      injectCSS: false,
      content: initial || '',
      extensions: [
        StarterKit.configure({
          // The stored subset has no horizontal rule; headings up to h3.
          horizontalRule: false,
          heading: { levels: [1, 2, 3] },
          link: {
            openOnClick: false,
            // Platforms link bare addresses themselves; without autolink a link mark does not grow as one types after it.
            autolink: false,
            linkOnPaste: true,
            defaultProtocol: 'https',
            HTMLAttributes: { target: null, rel: null, class: null },
            isAllowedUri: (url) => LINK.test(url),
          },
        }),
      ],
      editorProps: {
        // Read at each update: a comment's field is renumbered when one before it is removed.
        attributes: () => ({
          id: latest.current.id,
          role: 'textbox',
          'aria-multiline': 'true',
          'aria-labelledby': `${latest.current.id}-label`,
          class: tall ? 'rich-text-area tall' : 'rich-text-area',
        }),
        handleKeyDown: (_view, event) => {
          if (event.altKey && event.key === 'F10') {
            toolbar.current?.querySelector<HTMLButtonElement>('button[tabindex="0"]')?.focus();
            return true;
          }
          if ((event.ctrlKey || event.metaKey) && !event.shiftKey && !event.altKey && event.key.toLowerCase() === 'k') {
            latest.current.openLink();
            return true;
          }
          return false;
        },
      },
      onUpdate: ({ editor: changed }) => latest.current.onChange(storedHtml(changed)),
      onTransaction: () => setTick((n) => n + 1),
    });
    setEditor(instance);
    return () => instance.destroy();
  }, []);

  useEffect(() => {
    if (editor && editor.view.dom.id !== id) editor.view.dispatch(editor.state.tr);
  }, [editor, id]);

  useEffect(() => {
    if (link) linkInput.current?.focus();
  }, [link !== null]);

  latest.current.openLink = () => {
    if (!editor) return;
    const href = (editor.getAttributes('link').href as string | undefined) ?? '';
    setLink({ href: href.replace(/^mailto:/i, ''), error: null });
  };

  function applyLink() {
    if (!editor || !link) return;
    if (!link.href.trim()) return removeLink();
    const href = linkAddress(link.href);
    if (!href) {
      setLink({ ...link, error: 'A link must be a web address (https://…) or an e-mail address.' });
      return;
    }
    const { empty } = editor.state.selection;
    if (empty && !editor.isActive('link'))
      editor
        .chain()
        .focus()
        .insertContent({ type: 'text', text: href.replace(/^mailto:/i, ''), marks: [{ type: 'link', attrs: { href } }] })
        .run();
    else editor.chain().focus().extendMarkRange('link').setLink({ href }).run();
    setLink(null);
  }

  function removeLink() {
    editor?.chain().focus().extendMarkRange('link').unsetLink().run();
    setLink(null);
  }

  function onToolbarKey(event: KeyboardEvent) {
    const moves: Record<string, number> = { ArrowRight: 1, ArrowLeft: -1, Home: -TOOLS.length, End: TOOLS.length };
    const move = moves[event.key];
    if (move === undefined) return;
    event.preventDefault();
    const next = Math.min(TOOLS.length - 1, Math.max(0, focusIndex + move));
    setFocusIndex(next);
    toolbar.current?.querySelectorAll<HTMLButtonElement>('button')[next]?.focus();
  }

  return (
    <div class="rich-text">
      <div id={`${id}-label`} class={hideLabel ? 'visually-hidden' : 'field-label'}>
        {label}
      </div>
      <div
        class="rich-text-toolbar"
        role="toolbar"
        aria-label={`Formatting of ${label}`}
        aria-controls={id}
        ref={toolbar}
        onKeyDown={onToolbarKey}
      >
        {TOOLS.map((tool, i) => (
          <button
            type="button"
            class="secondary"
            tabIndex={i === focusIndex ? 0 : -1}
            aria-pressed={editor ? tool.active(editor) : false}
            title={tool.keys ? `${tool.name} (${tool.keys})` : tool.name}
            disabled={!editor}
            onFocus={() => setFocusIndex(i)}
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => (tool.name === 'Link' ? latest.current.openLink() : editor && tool.run(editor))}
          >
            <span aria-hidden="true" class={`glyph glyph-${tool.name.toLowerCase().replace(/\s+/g, '-')}`}>
              {tool.glyph}
            </span>
            <span class="visually-hidden">{tool.name}</span>
          </button>
        ))}
      </div>
      {link && (
        <div class="rich-text-link" role="group" aria-label={`Link in ${label}`}>
          <label for={`${id}-link`}>Link address (web or e-mail)</label>
          <input
            id={`${id}-link`}
            ref={linkInput}
            type="text"
            inputMode="url"
            value={link.href}
            aria-invalid={link.error ? 'true' : undefined}
            aria-describedby={link.error ? `${id}-link-error` : undefined}
            onInput={(e) => setLink({ href: (e.target as HTMLInputElement).value, error: null })}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                applyLink();
              } else if (e.key === 'Escape') {
                e.preventDefault();
                setLink(null);
                editor?.commands.focus();
              }
            }}
          />
          {link.error && (
            <p id={`${id}-link-error`} class="field-error">
              {link.error}
            </p>
          )}
          <div class="inline-fields">
            <button type="button" onClick={applyLink}>
              Apply link
            </button>
            {editor?.isActive('link') && (
              <button type="button" class="secondary" onClick={removeLink}>
                Remove link
              </button>
            )}
            <button
              type="button"
              class="secondary"
              onClick={() => {
                setLink(null);
                editor?.commands.focus();
              }}
            >
              Cancel
            </button>
          </div>
        </div>
      )}
      <div class="rich-text-box" ref={mount} />
    </div>
  );
}

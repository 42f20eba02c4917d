import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './app.css';
import type { Viewer } from './roles.ts';

type View = { default: (props: { viewer: Viewer }) => preact.JSX.Element };

/** The app's views, each loaded when first shown (its own chunk). */
const VIEWS: Record<string, () => Promise<View>> = {
  calendar: () => import('./calendar.tsx'),
};

function App({ viewer }: { viewer: Viewer }) {
  const [view, setView] = useState<View | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    VIEWS.calendar!().then(setView, (error: unknown) => setFailed(error instanceof Error ? error.message : String(error)));
  }, []);
  if (failed) return <p class="banner bad">The calendar could not be loaded: {failed}. Reload the page to try again.</p>;
  if (!view) return <p class="muted">Loading the calendar…</p>;
  const Calendar = view.default;
  return <Calendar viewer={viewer} />;
}

const mount = document.getElementById('app');
if (mount) {
  const role = document.querySelector<HTMLMetaElement>('meta[name="herald-role"]')?.content ?? '';
  mount.textContent = '';
  render(<App viewer={{ role, workspace: mount.dataset.workspace ?? '' }} />, mount);
}

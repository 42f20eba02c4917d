import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

/**
 * An area files can be dropped on (the composer's media, the media library): highlighted while
 * files are dragged over it, it hands the dropped files to `onFiles`. A file button inside it or
 * next to it does the same for the keyboard.
 */
export function DropZone({ onFiles, children }: { onFiles: (files: File[]) => void; children: ComponentChildren }) {
  const [over, setOver] = useState(false);
  return (
    <div
      class={over ? 'drop-zone over' : 'drop-zone'}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={(e) => {
        // Moving onto a button inside the zone is not leaving it.
        if (!(e.currentTarget as HTMLElement).contains(e.relatedTarget as Node | null)) setOver(false);
      }}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        const files = [...(e.dataTransfer?.files ?? [])];
        if (files.length) onFiles(files);
      }}
    >
      {children}
    </div>
  );
}

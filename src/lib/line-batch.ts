import fs from 'node:fs';
import type { DestinationStream } from 'pino';

/** Where gathered lines go: pino's asynchronous destination (SonicBoom). */
export type LineSink = DestinationStream & { flushSync(): void; flush?(cb?: (error?: Error) => void): void };

const gathering = new Set<LineBatch>();
let exitHookInstalled = false;

/**
 * Gathers log lines and hands them to `sink` together, once `writeAfter` characters wait or
 * `everyMs` has passed, so that the sink writes one string per batch.
 *
 * SonicBoom can gather lines itself (`minLength`), but every line it is given then measures the
 * UTF-8 length of all it holds so far (to keep under its largest write): with 8 KiB gathered that
 * walk was the largest single cost of a request line. Here a line costs an array push and a sum;
 * the join happens once per batch. What is still gathered when the process exits is written
 * synchronously after what the sink holds (pino flushes a SonicBoom at exit the same way).
 */
export class LineBatch implements DestinationStream {
  readonly #sink: LineSink;
  readonly #fd: number;
  readonly #writeAfter: number;
  #lines: string[] = [];
  #length = 0;

  constructor(sink: LineSink, options: { fd: number; writeAfter: number; everyMs: number }) {
    this.#sink = sink;
    this.#fd = options.fd;
    this.#writeAfter = options.writeAfter;
    setInterval(() => this.#pass(), options.everyMs).unref();
    gathering.add(this);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.on('exit', () => {
        for (const batch of gathering) batch.flushSync();
      });
    }
  }

  write(line: string): void {
    this.#lines.push(line);
    this.#length += line.length;
    if (this.#length >= this.#writeAfter) this.#pass();
  }

  /** Hands what is gathered to the sink, which writes it asynchronously; `cb` is called as the sink's own `flush` calls it. */
  flush(cb?: (error?: Error) => void): void {
    this.#pass();
    if (this.#sink.flush) this.#sink.flush(cb);
    else cb?.();
  }

  /** Writes everything now, synchronously: what the sink holds, then what is gathered here. */
  flushSync(): void {
    try {
      this.#sink.flushSync();
    } catch {
      // A destroyed sink (its reader went away) has nothing left to write.
    }
    if (this.#lines.length > 0) writeAllSync(this.#fd, this.#take());
  }

  #take(): string {
    const text = this.#lines.join('');
    this.#lines = [];
    this.#length = 0;
    return text;
  }

  #pass(): void {
    if (this.#lines.length > 0) this.#sink.write(this.#take());
  }
}

/** Writes all of `text` to `fd` synchronously, waiting briefly while a non-blocking pipe is full; gives up on any other error (a reader that went away). */
function writeAllSync(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let offset = 0;
  let retries = 0;
  while (offset < bytes.length) {
    try {
      offset += fs.writeSync(fd, bytes, offset);
      retries = 0;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== 'EAGAIN' && code !== 'EBUSY') || ++retries > 500) return;
      Atomics.wait(pause, 0, 0, 10);
    }
  }
}

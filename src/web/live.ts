/**
 * The network's live stream (`GET /{network}/api/v1/stream`): notes of the ledger as it moves.
 * A lost connection is retried with exponential backoff (1 s doubling to 30 s, with jitter),
 * and its state is published so the page can say so. Each new connection, the first included,
 * is announced as a `connected` note: what was missed meanwhile is read afresh. The stream's
 * first message says whether the network takes orders on this server; it is kept, and told as a
 * `network` note.
 */
import { createContext } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { book } from './api.js';

export interface LiveNote {
  type: string;
  position?: string;
  network?: string;
  auctionId?: number;
  uid?: string;
  /** A `network` note: whether orders can be placed on the network here. */
  writable?: boolean;
}

export type LiveState =
  | { kind: 'connecting' }
  | { kind: 'live' }
  | { kind: 'retrying'; inSeconds: number; attempt: number };

export interface LiveConnection {
  listen(listener: (note: LiveNote) => void): () => void;
  /** Whether the network takes orders here; null until the stream has said. */
  writable(): boolean | null;
  close(): void;
}

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

export function connectLive(network: string, onState: (state: LiveState) => void): LiveConnection {
  const listeners = new Set<(note: LiveNote) => void>();
  let source: EventSource | null = null;
  let retry: ReturnType<typeof setTimeout> | null = null;
  let failures = 0;
  let closed = false;
  let writable: boolean | null = null;
  const tell = (note: LiveNote) => {
    for (const listener of listeners) listener(note);
  };

  const open = () => {
    onState({ kind: 'connecting' });
    const stream = new EventSource(`${book(network)}/stream`);
    source = stream;
    stream.onopen = () => {
      failures = 0;
      onState({ kind: 'live' });
      tell({ type: 'connected' });
    };
    stream.onmessage = (message: MessageEvent<string>) =>
      tell(JSON.parse(message.data) as LiveNote);
    stream.addEventListener('network', (message: MessageEvent<string>) => {
      writable = (JSON.parse(message.data) as { writable: boolean }).writable;
      tell({ type: 'network', writable });
    });
    stream.onerror = () => {
      // The browser's own retry has no backoff: this one takes over.
      stream.close();
      if (closed) return;
      failures++;
      const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (failures - 1));
      const jittered = Math.round(delay * (0.75 + Math.random() * 0.5));
      onState({ kind: 'retrying', inSeconds: Math.ceil(jittered / 1000), attempt: failures });
      retry = setTimeout(open, jittered);
    };
  };
  open();
  return {
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    writable: () => writable,
    close() {
      closed = true;
      if (retry) clearTimeout(retry);
      source?.close();
      listeners.clear();
    },
  };
}

export const LiveContext = createContext<LiveConnection | null>(null);

/** Calls `onNote` with each note of the page's network (and on each new connection). */
export function useLiveNotes(onNote: (note: LiveNote) => void): void {
  const live = useContext(LiveContext);
  const latest = useRef(onNote);
  latest.current = onNote;
  useEffect(() => live?.listen((note) => latest.current(note)), [live]);
}

/** Whether the page's network takes orders on this server; null until the stream has said. */
export function useWritable(): boolean | null {
  const live = useContext(LiveContext);
  const [writable, setWritable] = useState<boolean | null>(null);
  useEffect(() => {
    setWritable(live?.writable() ?? null);
    return live?.listen((note) => {
      if (note.type === 'network') setWritable(note.writable ?? null);
    });
  }, [live]);
  return writable;
}

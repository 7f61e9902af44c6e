/**
 * Checkpoint notices between instances: every batch commit NOTIFYs its new position, and each
 * engine LISTENs, so `waitFor` also works on an instance whose projector runs elsewhere (the
 * handler that appended an order may not be the leader of the orders projector).
 *
 * Notices sent while the listening connection is down are lost; after every (re)connection
 * the engine re-reads the checkpoints from the table.
 */
import pg from 'pg';

export const CHECKPOINT_CHANNEL = 'batchbook_projection_checkpoints';

export interface CheckpointNotice {
  /** The engine (or `replay`) that moved the checkpoint; an engine skips its own notices. */
  instance: string;
  schema: string;
  projector: string;
  position: string | null;
}

export function noticePayload(notice: CheckpointNotice): string {
  return JSON.stringify(notice);
}

function parseNotice(payload: string | undefined): CheckpointNotice | null {
  try {
    const n = JSON.parse(payload ?? '') as Partial<CheckpointNotice>;
    if (typeof n.instance !== 'string' || typeof n.schema !== 'string') return null;
    if (typeof n.projector !== 'string') return null;
    if (typeof n.position !== 'string' && n.position !== null) return null;
    return n as CheckpointNotice;
  } catch {
    return null;
  }
}

export interface NoticeListenerOptions {
  connection: pg.ClientConfig;
  onNotice(notice: CheckpointNotice): void;
  /** After each (re)connection, once LISTEN is in place: catch up on what may have been missed. */
  onConnected(): Promise<void>;
  onError(err: unknown): void;
}

export class NoticeListener {
  private client: pg.Client | null = null;
  private closed = false;
  private failures = 0;
  private retry: NodeJS.Timeout | undefined;

  constructor(private readonly options: NoticeListenerOptions) {}

  /** Resolves after the first connection attempt (later ones happen in the background). */
  async start(): Promise<void> {
    await this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({
      ...this.options.connection,
      application_name: 'batchbook-projection-notices',
    });
    // Without an error listener a dropped connection would crash the process.
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, null));
    client.on('notification', (message) => {
      const notice = parseNotice(message.payload);
      if (notice) this.options.onNotice(notice);
    });
    try {
      this.client = client;
      await client.connect();
      await client.query(`LISTEN ${CHECKPOINT_CHANNEL}`);
      await this.options.onConnected();
      this.failures = 0;
    } catch (err) {
      this.lost(client, err);
    }
  }

  private lost(client: pg.Client, err: unknown): void {
    if (this.client !== client || this.closed) return;
    this.client = null;
    if (err) this.options.onError(err);
    void client.end().catch(() => undefined);
    const delay = Math.min(5000, 100 * 2 ** this.failures++);
    this.retry = setTimeout(() => void this.connect(), delay);
  }
}

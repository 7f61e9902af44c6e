/**
 * The Telegram bot's side of verification: it reads what is sent to the bot (`getUpdates`, the
 * Bot API's polling) and hands every verification code in a message or channel post, with the
 * chat it came from, to `verify`; a chat whose code verified a subscription is told so. A bot
 * with a webhook set (`setWebhook`) gets no updates this way: batchbook's bot must have none.
 *
 * One step is one poll. The Bot API serves one poller per bot at a time, so the composition runs
 * the steps under a leader lock. An update is confirmed by the next poll's offset, after it was
 * handled: a restart handles the unconfirmed ones again, to no effect (a subscription is verified
 * once). A code that verifies nothing is ignored; a failure to record one is logged, and the
 * chat may send the code again.
 */
import type { Logger } from 'pino';
import { codesIn, type TelegramChat } from '../../subscriptions/destination-verification.js';
import type { HttpClient } from '../http.js';

export interface TelegramUpdatesOptions {
  botToken: string;
  apiUrl: string;
  /** The operator's client: the Bot API's URL is not a subscriber's. */
  client: HttpClient;
  /** Deadline of one Bot API request. */
  timeoutMs: number;
  /** Verifies the pending subscription `code` was given to, if it names `chat`; its account. */
  verify(code: string, chat: TelegramChat): Promise<{ account: string } | null>;
  logger: Logger;
}

interface Message {
  chat?: { id?: unknown; username?: unknown };
  text?: unknown;
}

interface Update {
  update_id: number;
  message?: Message;
  channel_post?: Message;
}

/** The chat and text of an update that carries a text message, or null. */
function textOf(update: Update): { chat: TelegramChat; text: string } | null {
  const message = update.message ?? update.channel_post;
  const id = message?.chat?.id;
  if (typeof id !== 'number' || typeof message?.text !== 'string') return null;
  const username = message.chat?.username;
  return {
    chat: typeof username === 'string' ? { id, username } : { id },
    text: message.text,
  };
}

export function telegramUpdatesStep(options: TelegramUpdatesOptions): () => Promise<void> {
  const { client, logger: log } = options;
  const base = `${options.apiUrl.replace(/\/+$/, '')}/bot${options.botToken}`;
  let offset = 0;
  const call = async (method: string, body: object) => {
    const answer = await client.post(`${base}/${method}`, {
      headers: { 'Content-Type': 'application/json' },
      body: Buffer.from(JSON.stringify(body), 'utf8'),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    // The URL holds the bot's token: the status alone goes into errors.
    if (answer.status !== 200) throw new Error(`Telegram ${method} answered ${answer.status}`);
    return JSON.parse(answer.text) as { ok?: boolean; result?: unknown };
  };

  const handle = async (chat: TelegramChat, code: string) => {
    try {
      const verified = await options.verify(code, chat);
      if (!verified) return;
      await call('sendMessage', {
        chat_id: chat.id,
        text: `Confirmed: this chat receives the notices of account ${verified.account}.`,
      });
    } catch (error) {
      log.warn({ err: error, chat: chat.id }, 'a Telegram verification code was not recorded');
    }
  };

  return async () => {
    const answer = await call('getUpdates', {
      offset,
      timeout: 0,
      allowed_updates: ['message', 'channel_post'],
    });
    if (answer.ok !== true || !Array.isArray(answer.result)) {
      throw new Error('Telegram getUpdates answered without updates');
    }
    for (const update of answer.result as Update[]) {
      const message = textOf(update);
      if (message) {
        for (const code of codesIn(message.text)) await handle(message.chat, code);
      }
      offset = Math.max(offset, update.update_id + 1);
    }
  };
}

/**
 * Telegram channel: `sendMessage` of the Bot API (`POST {apiUrl}/bot{token}/sendMessage`,
 * JSON `{chat_id, text}`), the text being the message and the order it is about.
 *
 * Success is a 2xx answer with `ok: true`. A 429 carries `parameters.retry_after` (seconds):
 * the next attempt is scheduled no earlier. A 403 means the bot was blocked by the user or
 * removed from the chat: no retry can succeed, the row fails at once. The URL holds the bot
 * token, so it appears in no error message.
 */
import { DeliveryError, orderIdOf, type Channel, type Notice } from '../channel.js';
import { excerpt, type HttpAnswer, type HttpClient } from '../http.js';

export interface TelegramChannelOptions {
  botToken: string;
  /** https://api.telegram.org, or a stand-in. */
  apiUrl: string;
}

interface BotApiAnswer {
  ok?: boolean;
  description?: string;
  error_code?: number;
  parameters?: { retry_after?: number };
}

export function telegramText(notice: Notice): string {
  const orderId = orderIdOf(notice);
  return orderId ? `${notice.message}\nOrder: ${orderId}` : notice.message;
}

export function createTelegramChannel(
  options: TelegramChannelOptions,
  client: HttpClient,
): Channel<'telegram'> {
  const url = `${options.apiUrl.replace(/\/+$/, '')}/bot${options.botToken}/sendMessage`;
  return {
    async deliver(notice, channel, signal) {
      let response: HttpAnswer;
      try {
        response = await client.post(url, {
          headers: { 'Content-Type': 'application/json' },
          body: Buffer.from(
            JSON.stringify({ chat_id: channel.chatId, text: telegramText(notice) }),
            'utf8',
          ),
          signal,
        });
      } catch (error) {
        // Node's errors do not name the path, but be sure the token never reaches a log.
        if (error instanceof Error) error.message = error.message.replaceAll(options.botToken, '…');
        throw error;
      }
      let answer: BotApiAnswer = {};
      try {
        answer = JSON.parse(response.text) as BotApiAnswer;
      } catch {
        // Not JSON (a proxy's error page): the status tells.
      }
      if (response.status >= 200 && response.status <= 299 && answer.ok === true) return;
      const description = (answer.description ?? excerpt(response.text)).replaceAll(
        options.botToken,
        '…',
      );
      const message = `Telegram answered ${response.status}${description && `: ${description}`}`;
      const retryAfter = answer.parameters?.retry_after;
      throw new DeliveryError(message, {
        permanent: response.status === 403,
        retryAfterMs:
          typeof retryAfter === 'number' && retryAfter > 0 ? retryAfter * 1000 : undefined,
      });
    },
  };
}

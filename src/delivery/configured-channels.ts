/**
 * The channels the configuration enables, and the HTTP clients they send through. A channel the
 * configuration leaves out is `{ disabled }`, saying why, and fails its rows with that.
 */
import type { NotificationsConfig } from '../config.js';
import type { Channel, ChannelKind } from './channel.js';
import { createEmailChannel } from './channels/email.js';
import { createTelegramChannel } from './channels/telegram.js';
import { createWebhookChannel } from './channels/webhook.js';
import { createWebPushChannel } from './channels/webpush.js';
import type { HttpClient } from './http.js';

export type Channels = { [K in ChannelKind]: Channel<K> | { disabled: string } };

/**
 * HTTP clients: one for subscribers' URLs (webhooks, push endpoints), which connects only where
 * the destination policy allows, and one for the operator's (the Bot API).
 */
export interface Clients {
  subscribers: HttpClient;
  operator: HttpClient;
}

export function createChannels(
  config: Pick<NotificationsConfig, 'email' | 'webPush' | 'telegram'>,
  timeoutMs: number,
  clients: Clients,
): Channels {
  return {
    webhook: createWebhookChannel(clients.subscribers),
    email: config.email
      ? createEmailChannel({ ...config.email, timeoutMs })
      : { disabled: 'e-mail delivery is not configured (SMTP_URL is unset)' },
    webpush: config.webPush
      ? createWebPushChannel(config.webPush, clients.subscribers)
      : {
          disabled:
            'web push is not configured (WEB_PUSH_VAPID_PUBLIC_KEY / WEB_PUSH_VAPID_PRIVATE_KEY are unset)',
        },
    telegram: config.telegram
      ? createTelegramChannel(config.telegram, clients.operator)
      : { disabled: 'Telegram delivery is not configured (TELEGRAM_BOT_TOKEN is unset)' },
  };
}

/** Closes the channels that hold connections (SMTP), then the HTTP clients. */
export async function closeChannels(channels: Channels, clients: Clients): Promise<void> {
  await Promise.all(
    Object.values(channels).map(async (channel) => {
      if ('close' in channel && channel.close) await channel.close().catch(() => undefined);
    }),
  );
  clients.subscribers.close();
  clients.operator.close();
}

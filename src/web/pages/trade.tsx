/**
 * Trade: choose the tokens and an amount, get a quote, sign the order with the chosen wallet
 * and submit it, then follow it to its fill; an open order can be cancelled with a signed
 * cancellation. The least to buy starts at the quote less the slippage; asking more makes a
 * limit order that waits for its price. The official SDK does the signing and the API calls
 * (../sdk.ts). On a network this server does not run live the page says so and places nothing.
 */
import {
  BuyTokenDestination,
  OrderKind,
  OrderQuoteSideKindSell,
  SellTokenSource,
  SigningScheme,
  type OrderQuoteResponse,
  type UnsignedOrder,
} from '@cowprotocol/cow-sdk';
import { useState } from 'preact/hooks';
import { keccak256, toBytes } from 'viem';
import { api, book, type Order } from '../api.js';
import { OrderLink, Problem, Section, TokenAmount } from '../components.js';
import { decimalsOf, exactUnits, toAtoms } from '../format.js';
import { useLiveNotes, useWritable } from '../live.js';
import { networkChoice, networkTokens, type KnownToken } from '../networks.js';
import { asProblem, cowFor, OrderSigningUtils, type Cow } from '../sdk.js';
import { useApi } from '../use-api.js';
import { useAttempt } from '../use-attempt.js';
import { connectWallet, type ConnectedWallet } from '../wallet.js';
import { setWallet, useWallet } from '../wallet-choice.js';
import { WalletPicker } from '../wallet-picker.js';

const APP_DATA = JSON.stringify({ appCode: 'batchbook web', metadata: {}, version: '1.3.0' });
const APP_DATA_HASH = keccak256(toBytes(APP_DATA));
/** Below the quote, so that prices moving a little do not stop the order. */
const SLIPPAGE_BPS = 50n;

interface Quoted {
  response: OrderQuoteResponse;
  wallet: ConnectedWallet;
  cow: Cow;
}

function Follow({ network, uid, cow }: { network: string; uid: string; cow: Cow }) {
  const order = useApi(`follow/${uid}`, () => api<Order>(`${book(network)}/orders/${uid}`));
  const cancelling = useAttempt(asProblem);
  useLiveNotes((note) => {
    if (note.uid === uid || note.type === 'connected' || note.type === 'AuctionClosed')
      order.reload();
  });
  const cancel = () =>
    cancelling.run(async () => {
      const { signature, signingScheme } = await OrderSigningUtils.signOrderCancellations(
        [uid],
        cow.chainId,
        cow.signer,
        cow.options,
      );
      await cow.api.sendSignedOrderCancellations({ orderUids: [uid], signature, signingScheme });
      order.reload();
    });
  const o = order.data;
  return (
    <Section title="Your order">
      <p>
        <OrderLink network={network} uid={uid} />:{' '}
        <strong data-status={o?.status ?? 'unknown'}>{o?.status ?? '…'}</strong>
        {o && o.status === 'fulfilled' ? (
          <>
            {' '}
            — bought{' '}
            <TokenAmount network={network} token={o.buyToken} atoms={o.executedBuyAmount} />
          </>
        ) : null}
      </p>
      <Problem problem={order.problem ?? cancelling.problem} />
      {o?.status === 'open' ? (
        <button type="button" onClick={() => void cancel()} disabled={cancelling.busy}>
          Sign and cancel
        </button>
      ) : null}
    </Section>
  );
}

function TokenSelect({
  label,
  tokens,
  value,
  onChange,
}: {
  label: string;
  tokens: readonly KnownToken[];
  value: string;
  onChange(address: string): void;
}) {
  return (
    <label>
      {label}{' '}
      <select value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
        {tokens.map((t) => (
          <option key={t.address} value={t.address}>
            {t.symbol}
          </option>
        ))}
      </select>
    </label>
  );
}

export default function TradePage({ network }: { network: string }) {
  const tokens = networkTokens(network);
  const wallet = useWallet();
  const [sellToken, setSellToken] = useState(tokens[0]?.address ?? '');
  const [buyToken, setBuyToken] = useState(tokens[1]?.address ?? '');
  const [amountText, setAmountText] = useState('1');
  const [quoted, setQuoted] = useState<Quoted | null>(null);
  const [leastText, setLeastText] = useState('');
  const writable = useWritable();
  const [placed, setPlaced] = useState<{ uid: string; cow: Cow } | null>(null);
  const attempt = useAttempt(asProblem);
  const decimals = tokens.find((t) => t.address === sellToken)?.decimals ?? 0;

  const quote = () =>
    attempt.run(async () => {
      const atoms = toAtoms(amountText, decimals);
      if (atoms === null || atoms === 0n)
        throw asProblem(new Error('the amount must be a positive number'));
      const connected = await connectWallet(wallet.choice);
      setWallet({ choice: wallet.choice, address: connected.address });
      const cow = cowFor(network, connected);
      const response = await cow.api.getQuote({
        sellToken,
        buyToken,
        from: connected.address,
        receiver: connected.address,
        kind: OrderQuoteSideKindSell.SELL,
        sellAmountBeforeFee: atoms.toString(),
        appData: APP_DATA,
        appDataHash: APP_DATA_HASH,
      });
      setQuoted({ response, wallet: connected, cow });
      const least = (BigInt(response.quote.buyAmount) * (10_000n - SLIPPAGE_BPS)) / 10_000n;
      setLeastText(exactUnits(least, decimalsOf(network, buyToken)));
    });

  const submit = () =>
    attempt.run(async () => {
      if (!quoted) return;
      const { response, wallet: connected, cow } = quoted;
      const q = response.quote;
      const least = toAtoms(leastText, decimalsOf(network, q.buyToken));
      if (least === null || least === 0n)
        throw asProblem(new Error('the least to buy must be a positive number'));
      const order: UnsignedOrder = {
        sellToken: q.sellToken,
        buyToken: q.buyToken,
        receiver: connected.address,
        // Orders carry no signed fee: the quote's fee is part of what is sold.
        sellAmount: (BigInt(q.sellAmount) + BigInt(q.feeAmount)).toString(),
        buyAmount: least.toString(),
        validTo: q.validTo,
        appData: APP_DATA_HASH,
        feeAmount: '0',
        kind: OrderKind.SELL,
        partiallyFillable: false,
        sellTokenBalance: SellTokenSource.ERC20,
        buyTokenBalance: BuyTokenDestination.ERC20,
      };
      await cow.api.uploadAppData(APP_DATA_HASH, APP_DATA);
      const { signature, signingScheme } = await OrderSigningUtils.signOrder(
        order,
        cow.chainId,
        cow.signer,
        cow.options,
      );
      const uid = await cow.api.sendOrder({
        ...order,
        appData: APP_DATA,
        appDataHash: APP_DATA_HASH,
        signature,
        signingScheme: signingScheme as unknown as SigningScheme,
        from: connected.address,
        quoteId: response.id ?? null,
      });
      setPlaced({ uid, cow });
      setQuoted(null);
    });

  return (
    <>
      <h1>Trade</h1>
      {writable === false ? (
        <p class="notice" role="note">
          {networkChoice(network)?.label ?? network} is not live on this server: its pages are
          read-only, and no order can be placed here.
        </p>
      ) : null}
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          void quote();
        }}
      >
        <WalletPicker network={network} />
        <div class="row">
          <TokenSelect label="Sell" tokens={tokens} value={sellToken} onChange={setSellToken} />
          <label>
            Amount{' '}
            <input
              inputMode="decimal"
              required
              value={amountText}
              onInput={(e) => setAmountText((e.target as HTMLInputElement).value)}
            />
          </label>
          <TokenSelect label="Buy" tokens={tokens} value={buyToken} onChange={setBuyToken} />
        </div>
        {tokens.length === 0 ? <p>This app knows no tokens of {network}.</p> : null}
        <div class="row">
          <button type="submit" disabled={attempt.busy || writable === false}>
            Get quote
          </button>
        </div>
      </form>
      <Problem problem={attempt.problem} />
      {quoted ? (
        <Section title="Quote">
          <p data-quote-id={quoted.response.id ?? ''}>
            Sell{' '}
            <TokenAmount
              network={network}
              token={quoted.response.quote.sellToken}
              atoms={quoted.response.quote.sellAmount}
            />{' '}
            (fee{' '}
            <TokenAmount
              network={network}
              token={quoted.response.quote.sellToken}
              atoms={quoted.response.quote.feeAmount}
            />
            ) for about{' '}
            <TokenAmount
              network={network}
              token={quoted.response.quote.buyToken}
              atoms={quoted.response.quote.buyAmount}
            />
            . Valid until {new Date(quoted.response.expiration).toLocaleTimeString()}.
          </p>
          <label>
            Buy at least{' '}
            <input
              inputMode="decimal"
              required
              value={leastText}
              onInput={(e) => setLeastText((e.target as HTMLInputElement).value)}
            />{' '}
            <span class="muted">
              ({Number(SLIPPAGE_BPS) / 100}% below the quote; more waits for its price)
            </span>
          </label>
          <button type="button" onClick={() => void submit()} disabled={attempt.busy}>
            Sign and submit
          </button>
        </Section>
      ) : null}
      {placed ? <Follow network={network} uid={placed.uid} cow={placed.cow} /> : null}
    </>
  );
}

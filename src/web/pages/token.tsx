/** A token: its USD price, its native price and its largest holders. */
import { api, book } from '../api.js';
import { AccountLink, Problem, Scroll, Section, TokenAmount } from '../components.js';
import { native } from '../format.js';
import { knownToken } from '../networks.js';
import { useApi } from '../use-api.js';

export function TokenPage({ network, token }: { network: string; token: string }) {
  const known = knownToken(network, token);
  const usd = useApi(`usd/${token}`, () =>
    api<{ price: number }>(`/${network}/tokens/${token}/usdPrice`),
  );
  // The native price is native-token atoms per token atom: times 10^decimals for a whole token.
  const nativePrice = useApi(`native/${token}`, () =>
    api<{ price: number }>(`${book(network)}/token/${token}/native_price`),
  );
  const holders = useApi(`holders/${token}`, () =>
    api<{ address: string; balance: string }[]>(`/${network}/tokens/${token}/topHolders?limit=10`),
  );
  const wholeNative =
    nativePrice.data && known
      ? nativePrice.data.price * 10 ** known.decimals
      : nativePrice.data?.price;
  return (
    <>
      <h1>
        {known ? `${known.symbol} ` : 'Token '}
        <span class="mono wrap">{token}</span>
      </h1>
      <dl class="fields">
        <div>
          <dt>USD price</dt>
          <dd>{usd.data ? `$${usd.data.price.toPrecision(6)}` : usd.problem ? '—' : '…'}</dd>
        </div>
        <div>
          <dt>Native price{known ? ' (per whole token)' : ' (per atom)'}</dt>
          <dd>
            {wholeNative !== undefined
              ? native(BigInt(Math.round(wholeNative * 1e18)))
              : nativePrice.problem
                ? '—'
                : '…'}
          </dd>
        </div>
      </dl>
      <Problem problem={usd.problem} what="USD price" />
      <Problem problem={nativePrice.problem} what="Native price" />
      <Section title="Top holders">
        <Problem problem={holders.problem} what="Its holders could not be read" />
        {holders.data ? (
          <Scroll label="Top holders">
            <table>
              <thead>
                <tr>
                  <th scope="col">holder</th>
                  <th scope="col">balance</th>
                </tr>
              </thead>
              <tbody>
                {holders.data.map((h) => (
                  <tr key={h.address}>
                    <td>
                      <AccountLink network={network} address={h.address} />
                    </td>
                    <td>
                      <TokenAmount network={network} token={token} atoms={h.balance} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scroll>
        ) : null}
      </Section>
    </>
  );
}

// A real OpenID Connect provider on loopback for ACS's single sign-on tests.
//
// The npm package `oidc-provider` (pinned in scripts/setup-test-env.sh, installed in
// <repo>/node_modules), configured from JSON given in the environment variable
// ACS_OIDC_PROVIDER_CONFIG or as the first argument:
//
//   {
//     "port": 0,                        // 0: pick a free one
//     "clients": [{ "client_id": "...", "client_secret": "...", "redirect_uris": ["..."] }],
//     "accounts": [{ "sub": "...", "password": "...", "preferred_username": "...",
//                    "given_name": "...", "family_name": "...", "email": "...",
//                    "groups": ["..."] }],   // optional: a `groups` claim (profile scope), any JSON
//     "tamper_id_token": false          // true: /token answers ID tokens with a broken signature
//   }
//
// The issuer is http://127.0.0.1:<port> (the port it listens on); discovery is at
// /.well-known/openid-configuration. Authorization code flow only, PKCE (S256) required,
// client authentication client_secret_basic or client_secret_post (either works for every
// client), scopes openid profile email, ID tokens signed RS256 with a key made at start and
// carrying the profile and email claims themselves (conformIdTokenClaims off).
//
// Interactions are plain HTML without JavaScript. The login page holds
// <form method="post" action="/interaction/<uid>/login"> with the fields `login` (an
// account's preferred_username, or its sub) and `password`, and a second form
// <form method="post" action="/interaction/<uid>/abort"> (the user cancels: the relying
// party gets error=access_denied). A wrong password answers 200 with the form again and a
// message. There is no consent page: logging in grants the requested scopes at once, so
// one POST suffices; a request that still needs consent (prompt=consent) is granted
// without a page as well.
//
// When it listens it prints one line `READY <issuer>` on stdout. Every request is logged
// on stderr. It exits when stdin closes (its parent is gone) or on SIGTERM / SIGINT.

import * as crypto from 'node:crypto';
import * as http from 'node:http';

import Provider from 'oidc-provider';

const SCOPES = ['openid', 'profile', 'email'];

function fail(message) {
  process.stderr.write(`provider.mjs: ${message}\n`);
  process.exit(2);
}

function readConfig() {
  const raw = process.env.ACS_OIDC_PROVIDER_CONFIG ?? process.argv[2];
  if (!raw) {
    fail('no configuration: set ACS_OIDC_PROVIDER_CONFIG or pass the JSON as the first argument');
  }
  let config;
  try {
    config = JSON.parse(raw);
  } catch (error) {
    fail(`the configuration is not JSON: ${error.message}`);
  }
  const port = config.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`bad port ${port}`);
  const clients = config.clients ?? [];
  for (const client of clients) {
    if (typeof client.client_id !== 'string' || !client.client_id) fail('a client without client_id');
    if (typeof client.client_secret !== 'string' || !client.client_secret) {
      fail(`client ${client.client_id} has no client_secret`);
    }
    if (!Array.isArray(client.redirect_uris) || client.redirect_uris.length === 0) {
      fail(`client ${client.client_id} has no redirect_uris`);
    }
  }
  const accounts = config.accounts ?? [];
  for (const account of accounts) {
    if (typeof account.sub !== 'string' || !account.sub) fail('an account without sub');
    if (typeof account.password !== 'string') fail(`account ${account.sub} has no password`);
  }
  return { port, clients, accounts, tamperIdToken: config.tamper_id_token === true };
}

const config = readConfig();

// --- accounts ----------------------------------------------------------------------------

const accountsBySub = new Map(config.accounts.map((account) => [account.sub, account]));

function findByLogin(login) {
  return config.accounts.find((a) => a.preferred_username && a.preferred_username === login)
    ?? accountsBySub.get(login);
}

// The account's claims; empty strings are left out.
function claimsOf(account) {
  const claims = { sub: account.sub };
  for (const name of ['preferred_username', 'given_name', 'family_name', 'email']) {
    if (typeof account[name] === 'string' && account[name] !== '') claims[name] = account[name];
  }
  const name = [account.given_name, account.family_name].filter(Boolean).join(' ');
  if (name) claims.name = name;
  if (claims.email) claims.email_verified = true;
  if (account.groups !== undefined && account.groups !== null) claims.groups = account.groups;
  return claims;
}

function passwordMatches(account, password) {
  const a = crypto.createHash('sha256').update(account.password).digest();
  const b = crypto.createHash('sha256').update(password).digest();
  return crypto.timingSafeEqual(a, b);
}

// --- pages -------------------------------------------------------------------------------

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({
    '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;',
  })[c]);
}

function page(title, body) {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title></head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

function loginPage(uid, clientId, { message, login } = {}) {
  const action = `/interaction/${encodeURIComponent(uid)}`;
  return page('Sign in to the test provider', `<p>Client: <code>${escapeHtml(clientId)}</code></p>
${message ? `<p role="alert" id="error">${escapeHtml(message)}</p>\n` : ''}<form method="post" action="${action}/login">
<p><label for="login">Username</label> <input id="login" name="login" autocomplete="username" value="${escapeHtml(login ?? '')}" required></p>
<p><label for="password">Password</label> <input id="password" name="password" type="password" autocomplete="current-password" required></p>
<p><button type="submit">Sign in</button></p>
</form>
<form method="post" action="${action}/abort">
<p><button type="submit">Cancel</button></p>
</form>`);
}

async function readForm(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > 65536) throw new Error('form too large');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

// --- grants ------------------------------------------------------------------------------

// A grant of the requested OIDC scopes (and claims) for the interaction's client and
// account: what a consent page would have asked for, given without asking.
async function autoGrant(provider, interaction, accountId) {
  const { params, prompt, grantId } = interaction;
  let grant = grantId ? await provider.Grant.find(grantId) : undefined;
  if (!grant) grant = new provider.Grant({ accountId, clientId: params.client_id });
  const requested = String(params.scope ?? '').split(' ').filter((s) => SCOPES.includes(s));
  const missing = prompt.details?.missingOIDCScope ?? [];
  grant.addOIDCScope([...new Set([...requested, ...missing])].join(' '));
  const missingClaims = prompt.details?.missingOIDCClaims ?? [];
  if (missingClaims.length) grant.addOIDCClaims(missingClaims);
  return grant.save();
}

// --- the provider ------------------------------------------------------------------------

function signingKey() {
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' });
  return { ...jwk, kid: crypto.randomBytes(8).toString('hex'), alg: 'RS256', use: 'sig' };
}

// Flips the first character of the signature: it holds six whole bits of the first byte
// (the last one may hold only padding bits), so the signature no longer verifies.
function tamper(jwt) {
  const parts = jwt.split('.');
  const signature = parts[2];
  parts[2] = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
  return parts.join('.');
}

function build(issuer) {
  const provider = new Provider(issuer, {
    clients: config.clients.map((client) => ({
      client_id: client.client_id,
      client_secret: client.client_secret,
      redirect_uris: client.redirect_uris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      // The registered method; client_secret_post is accepted for it as well (oidc-provider
      // takes either of the two for a client with a secret).
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    async findAccount(_ctx, sub) {
      const account = accountsBySub.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: async () => claimsOf(account) };
    },
    claims: {
      openid: ['sub'],
      profile: ['preferred_username', 'given_name', 'family_name', 'name', 'groups'],
      email: ['email', 'email_verified'],
    },
    scopes: SCOPES,
    responseTypes: ['code'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    pkce: { required: () => true },
    conformIdTokenClaims: false,
    jwks: { keys: [signingKey()] },
    cookies: { keys: [crypto.randomBytes(32).toString('hex')] },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: true },
      revocation: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    async renderError(ctx, out, error) {
      ctx.type = 'html';
      ctx.body = page('Error', `<pre id="error">${escapeHtml(JSON.stringify(out, null, 2))}</pre>`);
      if (error?.stack) process.stderr.write(`provider.mjs: ${error.stack}\n`);
    },
  });

  // Why a request failed, for the test's failure message (Provider::log).
  for (const event of ['authorization.error', 'grant.error', 'userinfo.error', 'server_error']) {
    provider.on(event, (_ctx, error) => {
      const detail = [error.error_description, error.error_detail, error.cause?.message]
        .filter(Boolean).join('; ');
      process.stderr.write(`provider.mjs: ${event}: ${error.error ?? error.message}: ${detail}\n`);
    });
  }

  provider.use(async (ctx, next) => {
    const started = Date.now();
    try {
      await next();
    } finally {
      process.stderr.write(
        `provider.mjs: ${ctx.method} ${ctx.originalUrl} ${ctx.status} ${Date.now() - started}ms\n`,
      );
    }
  });

  if (config.tamperIdToken) {
    const tokenPath = new URL(provider.urlFor('token')).pathname;
    provider.use(async (ctx, next) => {
      await next();
      if (ctx.path === tokenPath && ctx.body && typeof ctx.body.id_token === 'string') {
        ctx.body = { ...ctx.body, id_token: tamper(ctx.body.id_token) };
      }
    });
  }

  provider.use(async (ctx, next) => {
    const match = /^\/interaction\/([^/]+)(?:\/(login|abort))?$/.exec(ctx.path);
    if (!match) return next();
    const [, uid, action] = match;
    ctx.set('Cache-Control', 'no-store');
    try {
      const interaction = await provider.interactionDetails(ctx.req, ctx.res);
      if (interaction.uid !== uid) throw new Error('interaction mismatch');
      const { prompt, params } = interaction;
      const finish = async (result) => {
        ctx.status = 303;
        ctx.redirect(await provider.interactionResult(ctx.req, ctx.res, result, {
          mergeWithLastSubmission: false,
        }));
      };

      if (!action && ctx.method === 'GET') {
        if (prompt.name === 'login') {
          ctx.type = 'html';
          ctx.body = loginPage(uid, params.client_id);
          return undefined;
        }
        // consent (or any other prompt) after a login: granted without a page.
        const accountId = interaction.session?.accountId;
        if (!accountId) throw new Error(`prompt ${prompt.name} without a logged in account`);
        const grantId = await autoGrant(provider, interaction, accountId);
        return finish({ consent: { grantId } });
      }
      if (action === 'login' && ctx.method === 'POST') {
        const form = await readForm(ctx.req);
        const login = form.get('login') ?? '';
        const account = findByLogin(login);
        if (!account || !passwordMatches(account, form.get('password') ?? '')) {
          ctx.status = 200;
          ctx.type = 'html';
          ctx.body = loginPage(uid, params.client_id, {
            message: 'Invalid username or password.',
            login,
          });
          return undefined;
        }
        const grantId = await autoGrant(provider, interaction, account.sub);
        return finish({ login: { accountId: account.sub }, consent: { grantId } });
      }
      if (action === 'abort' && ctx.method === 'POST') {
        return finish({ error: 'access_denied', error_description: 'the end-user cancelled' });
      }
      ctx.status = 405;
      ctx.type = 'text';
      ctx.body = 'method not allowed';
      return undefined;
    } catch (error) {
      process.stderr.write(`provider.mjs: interaction ${uid}: ${error.stack ?? error}\n`);
      ctx.status = 400;
      ctx.type = 'html';
      ctx.body = page('Error', `<p id="error">${escapeHtml(error.message ?? error)}</p>`);
      return undefined;
    }
  });

  return provider;
}

// --- start -------------------------------------------------------------------------------

let handler = (_req, res) => {
  res.statusCode = 503;
  res.end('starting');
};
const server = http.createServer((req, res) => handler(req, res));
server.on('error', (error) => fail(`cannot listen on 127.0.0.1:${config.port}: ${error.message}`));
server.listen(config.port, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  try {
    handler = build(issuer).callback();
  } catch (error) {
    fail(`oidc-provider rejected the configuration: ${error.stack ?? error}`);
  }
  process.stdout.write(`READY ${issuer}\n`);
});

function stop() {
  server.close();
  server.closeAllConnections();
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.on('error', stop);
process.stdin.resume();

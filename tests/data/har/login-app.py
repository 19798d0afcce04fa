#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# A small shop with a login form, for `throng import har`'s correlation
# (docs/har.md): record.mjs records a browser using it (login.har), and
# tests/integration/test-har-replay.c replays that recording against a
# fresh instance, whose tokens, session and ids all differ from the
# recording's.  Standard library only; loopback only.
#
#   /usr/bin/python3 login-app.py [--port N] [--broken csrf]
#
# listens on 127.0.0.1 (port N, or one the system picks), prints its URL
# ("http://127.0.0.1:PORT") on standard output and serves until it is
# killed.  `--broken csrf` rejects every CSRF token, as an application
# whose check broke would: a replay must fail.
#
# The journey: GET / (a session cookie, a CSRF token in a hidden input),
# POST /login (form; 303 to /account and a new session, as a login should
# rotate it), GET /account (a new CSRF token in a <meta> and a form, the
# cart's id), XHR GET /api/profile (JSON: an API token), XHR POST
# /api/carts/CART/items (JSON; X-CSRF-Token and Authorization: Bearer),
# POST /checkout (form; 303 to /orders/ORDER, a new id), GET /orders/ORDER,
# XHR GET /api/orders/ORDER.
import http.server
import json
import secrets
import sys
import threading
import urllib.parse

def option(name, default=None):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv[:-1] else default


BROKEN = option('--broken') == 'csrf'
PORT = int(option('--port', '0'))
USERS = {'alice': 'wonderland'}
sessions = {}   # sid -> {'csrf', 'user', 'cart', 'api_token', 'items'}
orders = {}     # order id -> {'sid', 'items'}
lock = threading.Lock()


def new_session(user=None):
    sid = secrets.token_urlsafe(18)
    sessions[sid] = {'csrf': secrets.token_urlsafe(24), 'user': user,
                     'cart': 'cart-' + secrets.token_hex(6),
                     'api_token': secrets.token_hex(16), 'items': []}
    return sid


LOGIN_PAGE = '''<!doctype html>
<html><head><meta charset="utf-8"><title>Sign in</title></head>
<body><h1>Sign in</h1>
<form method="post" action="/login">
  <input type="hidden" name="csrf_token" value="{csrf}">
  <label>User <input name="username" autocomplete="username"></label>
  <label>Password <input name="password" type="password"></label>
  <button type="submit">Sign in</button>
</form></body></html>
'''

ACCOUNT_PAGE = '''<!doctype html>
<html><head><meta charset="utf-8"><meta name="csrf-token" content="{csrf}">
<title>Your account</title></head>
<body><h1>Hello, {user}</h1>
<form id="checkout" method="post" action="/checkout">
  <input type="hidden" name="csrf_token" value="{csrf}">
  <input type="hidden" name="cart" value="{cart}">
  <button type="submit">Check out</button>
</form></body></html>
'''

ORDER_PAGE = '''<!doctype html>
<html><head><meta charset="utf-8"><title>Order</title></head>
<body><h1>Thank you</h1>
<p id="order" data-order="{order}">Order {order} is confirmed.</p></body></html>
'''


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, format, *args):
        pass

    def session(self):
        cookies = self.headers.get('Cookie', '')
        for part in cookies.split(';'):
            name, _, value = part.strip().partition('=')
            if name == 'sid' and value in sessions:
                return value, sessions[value]
        return None, None

    def send(self, status, body=b'', content_type='text/html; charset=utf-8', headers=()):
        if isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if body:
            self.send_header('Content-Type', content_type)
        self.send_header('Content-Length', str(len(body)))
        self.send_header('Cache-Control', 'no-store')
        self.end_headers()
        self.wfile.write(body)

    def send_json(self, status, value):
        self.send(status, json.dumps(value), 'application/json')

    def read_body(self):
        length = int(self.headers.get('Content-Length', '0'))
        return self.rfile.read(length) if length > 0 else b''

    def csrf_ok(self, session, token):
        return not BROKEN and session is not None and secrets.compare_digest(session['csrf'], token or '')

    def do_GET(self):
        with lock:
            self.get()

    def do_POST(self):
        with lock:
            self.post()

    def get(self):
        path = urllib.parse.urlsplit(self.path).path
        sid, session = self.session()
        if path == '/':
            headers = []
            if session is None:
                sid = new_session()
                session = sessions[sid]
                headers.append(('Set-Cookie', f'sid={sid}; Path=/; HttpOnly; SameSite=Lax'))
            return self.send(200, LOGIN_PAGE.format(csrf=session['csrf']), headers=headers)
        if path == '/favicon.ico':
            return self.send(404, 'no icon', 'text/plain')
        if session is None or session['user'] is None:
            if path.startswith('/api/'):
                return self.send_json(401, {'error': 'not signed in'})
            return self.send(302, headers=[('Location', '/')])
        if path == '/account':
            return self.send(200, ACCOUNT_PAGE.format(csrf=session['csrf'], user=session['user'],
                                                      cart=session['cart']))
        if path == '/api/profile':
            return self.send_json(200, {'user': session['user'], 'plan': 'basic',
                                        'api_token': session['api_token'],
                                        'cart': {'id': session['cart'], 'items': len(session['items'])}})
        if path.startswith('/orders/') or path.startswith('/api/orders/'):
            order_id = path.rsplit('/', 1)[1]
            order = orders.get(order_id)
            if order is None or order['sid'] != sid:
                return self.send(404, 'no such order', 'text/plain')
            if path.startswith('/api/'):
                return self.send_json(200, {'order': order_id, 'status': 'confirmed',
                                            'items': order['items']})
            return self.send(200, ORDER_PAGE.format(order=order_id))
        return self.send(404, 'not found', 'text/plain')

    def post(self):
        path = urllib.parse.urlsplit(self.path).path
        body = self.read_body()
        sid, session = self.session()
        if path == '/login':
            form = urllib.parse.parse_qs(body.decode(), keep_blank_values=True)
            field = lambda name: form.get(name, [''])[0]
            if not self.csrf_ok(session, field('csrf_token')):
                return self.send(403, 'CSRF token missing or incorrect', 'text/plain')
            user = field('username')
            if USERS.get(user) != field('password'):
                return self.send(401, 'wrong user or password', 'text/plain')
            del sessions[sid]
            sid = new_session(user)   # a login rotates the session and its token
            return self.send(303, headers=[('Location', '/account'),
                                           ('Set-Cookie', f'sid={sid}; Path=/; HttpOnly; SameSite=Lax')])
        if session is None or session['user'] is None:
            return self.send_json(401, {'error': 'not signed in'})
        if path.startswith('/api/carts/') and path.endswith('/items'):
            cart = path.split('/')[3]
            if not self.csrf_ok(session, self.headers.get('X-CSRF-Token')):
                return self.send_json(403, {'error': 'CSRF token missing or incorrect'})
            if self.headers.get('Authorization') != 'Bearer ' + session['api_token']:
                return self.send_json(401, {'error': 'bad API token'})
            if cart != session['cart']:
                return self.send_json(404, {'error': 'no such cart'})
            item = json.loads(body or b'{}')
            session['items'].append(item)
            return self.send_json(201, {'cart': cart, 'items': len(session['items']),
                                        'added': item})
        if path == '/checkout':
            form = urllib.parse.parse_qs(body.decode(), keep_blank_values=True)
            if not self.csrf_ok(session, form.get('csrf_token', [''])[0]):
                return self.send(403, 'CSRF token missing or incorrect', 'text/plain')
            if form.get('cart', [''])[0] != session['cart'] or not session['items']:
                return self.send(409, 'nothing to check out', 'text/plain')
            order_id = 'ord-' + secrets.token_hex(8)
            orders[order_id] = {'sid': sid, 'items': session['items']}
            session['items'] = []
            return self.send(303, headers=[('Location', f'/orders/{order_id}')])
        return self.send(404, 'not found', 'text/plain')


def main():
    server = http.server.ThreadingHTTPServer(('127.0.0.1', PORT), Handler)
    server.daemon_threads = True
    print(f'http://127.0.0.1:{server.server_address[1]}', flush=True)
    server.serve_forever()


if __name__ == '__main__':
    main()

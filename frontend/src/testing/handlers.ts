/** MSW handlers that behave like the Django API, including its error bodies. */
import { http, HttpResponse } from "msw";
import type { AuthSession, LoginInput, PasswordChangeInput, SignupInput, User } from "../api/account/auth";
import { CSRF_COOKIE, CSRF_TOKEN, db, REMEMBER_COOKIE } from "./mock-db";

interface ErrorBody {
  detail: string;
  code: string;
  fields?: Record<string, string[]>;
}

const error = (status: number, body: ErrorBody) => HttpResponse.json(body, { status });

const notAuthenticated = () =>
  error(401, { detail: "Authentication credentials were not provided.", code: "not_authenticated" });

function authenticate(request: Request) {
  const header = request.headers.get("Authorization") ?? "";
  const token = header.startsWith("Token ") ? header.slice("Token ".length) : "";
  const user = db.userForToken(token);
  return user ? { token, user } : null;
}

function publicUser(user: User): User {
  return { id: user.id, email: user.email, date_joined: user.date_joined };
}

function session(email: string): AuthSession {
  const user = db.findUser(email);
  if (!user) throw new Error(`no such user ${email}`);
  return { token: db.issueToken(email), expiry: "2026-12-01T00:00:00Z", user: publicUser(user) };
}

export const handlers = [
  http.post("/api/auth/signup/", async ({ request }) => {
    const body = (await request.json()) as SignupInput;
    const fields: Record<string, string[]> = {};
    if (db.findUser(body.email)) fields.email = ["A user with this e-mail address already exists."];
    if (body.password.length < 8)
      fields.password = ["This password is too short. It must contain at least 8 characters."];
    if (Object.keys(fields).length > 0) {
      return error(400, { detail: "Please correct the highlighted fields.", code: "invalid", fields });
    }
    db.addUser(body.email, body.password);
    return HttpResponse.json(session(body.email), { status: 201 });
  }),

  http.post("/api/auth/login/", async ({ request }) => {
    const body = (await request.json()) as LoginInput;
    const user = db.findUser(body.email);
    if (user?.password !== body.password) {
      return error(400, { detail: "The e-mail or password is incorrect.", code: "invalid_credentials" });
    }
    // A login decides what the browser remembers: an earlier "keep me signed in" ends, a new one starts if asked.
    db.forgetBrowser();
    if (body.remember === true) db.rememberBrowser(body.email);
    return HttpResponse.json(session(body.email));
  }),

  http.get("/api/auth/csrf/", () => {
    document.cookie = `${CSRF_COOKIE}=${CSRF_TOKEN}; path=/`;
    return HttpResponse.json({ csrf_token: CSRF_TOKEN });
  }),

  http.post("/api/auth/resume/", ({ request, cookies }) => {
    const secret = cookies[REMEMBER_COOKIE];
    const notRemembered = () => {
      db.forgetBrowser();
      return error(401, {
        detail: "This browser is not kept signed in (or no longer): please log in.",
        code: "not_remembered",
      });
    };
    if (secret === undefined) return notRemembered();
    const csrf = request.headers.get("X-CSRFToken");
    if (csrf === null || csrf !== cookies[CSRF_COOKIE]) {
      return error(403, { detail: "Refused: this request did not come from Parley's own pages.", code: "csrf_failed" });
    }
    const user = db.userForRememberToken(secret);
    return user ? HttpResponse.json(session(user.email)) : notRemembered();
  }),

  http.post("/api/auth/logout/", ({ request }) => {
    const auth = authenticate(request);
    if (!auth) return notAuthenticated();
    db.revokeToken(auth.token);
    db.forgetBrowser();
    return new HttpResponse(null, { status: 204 });
  }),

  http.post("/api/auth/logout-all/", ({ request }) => {
    const auth = authenticate(request);
    if (!auth) return notAuthenticated();
    db.revokeAllTokens(auth.user.email);
    db.forgetBrowser();
    return new HttpResponse(null, { status: 204 });
  }),

  http.get("/api/auth/me/", ({ request }) => {
    const auth = authenticate(request);
    return auth ? HttpResponse.json(publicUser(auth.user)) : notAuthenticated();
  }),

  http.post("/api/auth/password/", async ({ request }) => {
    const auth = authenticate(request);
    if (!auth) return notAuthenticated();
    const body = (await request.json()) as PasswordChangeInput;
    if (body.current_password !== auth.user.password) {
      return error(400, {
        detail: "Please correct the highlighted fields.",
        code: "invalid",
        fields: { current_password: ["The current password is incorrect."] },
      });
    }
    auth.user.password = body.new_password;
    db.revokeAllTokens(auth.user.email);
    db.forgetBrowser();
    return HttpResponse.json(session(auth.user.email));
  }),

  http.get("/api/health/", () => HttpResponse.json(db.health, { status: db.health.status === "ok" ? 200 : 503 })),
];

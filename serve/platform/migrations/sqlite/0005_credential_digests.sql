-- The credentials that exist, read by each replica as digests created since its last read
-- (auth::known): an address whose refused-credential window is full still reaches the store with a
-- credential that exists, never with a guessed one.
CREATE INDEX api_keys_created ON api_keys(created_at);
CREATE INDEX oauth_tokens_expires ON oauth_tokens(kind, expires_at);

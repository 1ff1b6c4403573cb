-- Run once by the postgres image on an empty data directory (docker-entrypoint-initdb.d), as
-- the POSTGRES_USER `mfa`. Each data service owns its own database; the gateway has none.
CREATE DATABASE factor_registry OWNER mfa;
CREATE DATABASE challenge_issuer OWNER mfa;
CREATE DATABASE session_token OWNER mfa;

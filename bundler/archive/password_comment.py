"""The zip comment of a password-mode bundle, apart from the sealing code: writing a
password-mode bundle then needs no public-key cryptography at start-up (issue 19)."""

PASSWORD_COMMENT = (
    b"bundler bundle (WinZip AES-256): open it with `bundler extract BUNDLE --to DIR` "
    b"or 7-Zip and its password"
)
"""The zip comment of a password-mode bundle (fixed text: it carries nothing else)."""

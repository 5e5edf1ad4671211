"""Collection: run a product's plan over HTTP and SSH (or locally) and keep every outcome."""

"""The Lexio engine service: gRPC around the pure rules package ``lexio_rules``."""

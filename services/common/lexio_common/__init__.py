"""What every Lexio service shares: logging, configuration, the gRPC server's life cycle."""

"""The dashboard's pages, a module per page or small group of pages."""

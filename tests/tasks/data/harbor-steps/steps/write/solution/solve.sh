#!/bin/bash
echo hello > /app/notes.txt

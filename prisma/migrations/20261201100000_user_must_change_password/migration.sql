-- AlterTable: a user holding a generated one-time password must set their own before anything else.
ALTER TABLE "User" ADD COLUMN     "mustChangePassword" BOOLEAN NOT NULL DEFAULT false;
